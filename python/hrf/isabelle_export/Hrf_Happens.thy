(* hrf base theory: what the machine's threads know along happens-before
   (step (3) of docs/isabelle.md's plan for [RSP15]'s soundness theorem,
   its second part). A thread knows the writes observed before its own
   accesses in the exhibited candidate's happens-before (Hrf_Coherence's
   hbm and knows). Three invariants: a write an access knows that has not
   reached the L2 is of its thread's work-group, but in a remote acquire's
   window (a remote load's or a remote RMW's), until its flush of the
   device's L1s has passed the write's work-group (and one a thread knows
   that has not reached memory is of its own device); a write at device
   scope of a location two work-groups access, or of a remote store, is a
   release that was flushed: every other write its thread knew had reached
   the L2 when it was performed; and what a remote RMW's write knows that has not reached
   the L2 waits in a work-group where its location is at home. For
   programs whose conflicts across work-groups are between atomics at
   device scope or wider, or a remote store or a remote RMW read by an
   atomic load, or a work-group-scope atomic write read by a remote load,
   or a work-group-scope atomic write and a remote RMW, or a
   work-group-scope atomic store or RMW and a remote store (what race freedom
   gives a program whose remote operations promote at most such loads and
   writes, Hrf_Source_Opencl's race_free_conflicts_incl), compiled by rows
   whose writes at such scope flush first, whose RMWs at such scope are
   performed at the L2, whose remote loads and RMWs flush the device's L1s
   after their access, and whose remote stores and RMWs invalidate them
   after a flush before it (rsp-new's). Written by hand, every proof
   complete. *)
theory Hrf_Happens
  imports Hrf_Coherence Hrf_Source_Opencl
begin

section \<open>The programs and the rows\<close>

text \<open>A location that threads of two work-groups access.\<close>
definition shared :: "layout \<Rightarrow> src_program \<Rightarrow> addr \<Rightarrow> bool" where
  "shared L P x \<longleftrightarrow> (\<exists>a b. (is_rd P a \<or> is_wr P a) \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = Some x \<and> sloc P b = Some x
     \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> ewg L a \<noteq> ewg L b)"

text \<open>The write of a remote store.\<close>
definition rstore_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "rstore_ev P e \<longleftrightarrow> (case e of Init x \<Rightarrow> False | Acc t i p \<Rightarrow> (\<exists>sc r x. ins P t i = Op (Store sc True) r x))"

lemma rstore_remote: "rstore_ev P e \<Longrightarrow> remote_ev P e"
  by (cases e) (auto simp: rstore_ev_def remote_ev_def)

text \<open>The read of a remote load at device scope or wider.\<close>
definition rload_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "rload_ev P e \<longleftrightarrow> (case e of Init x \<Rightarrow> False
     | Acc t i p \<Rightarrow> (\<exists>sc r x. ins P t i = Op (Load sc True) r x \<and> sc \<in> {Device, AllDevices}))"

lemma rload_not_wr: "rload_ev P e \<Longrightarrow> \<not> is_wr P e"
  by (cases e) (auto simp: rload_ev_def)

lemma rload_wide: "rload_ev P e \<Longrightarrow> wide_ev P e"
  by (cases e) (auto simp: rload_ev_def wide_ev_def)

text \<open>The access of a remote acquire at device scope or wider: the read of a
  remote load, or the read or the write of a remote RMW.\<close>
definition racq_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "racq_ev P e \<longleftrightarrow> (case e of Init x \<Rightarrow> False
     | Acc t i p \<Rightarrow> (\<exists>sc r x. (ins P t i = Op (Load sc True) r x \<or> ins P t i = Op (FetchInc sc True) r x)
          \<and> sc \<in> {Device, AllDevices}))"

lemma rload_racq: "rload_ev P e \<Longrightarrow> racq_ev P e"
  by (cases e) (auto simp: rload_ev_def racq_ev_def)

lemma racq_wide: "racq_ev P e \<Longrightarrow> wide_ev P e"
  by (cases e) (auto simp: racq_ev_def wide_ev_def)

lemma racq_remote: "racq_ev P e \<Longrightarrow> remote_ev P e"
  by (cases e) (auto simp: racq_ev_def remote_ev_def)

lemma racq_atomic: "racq_ev P e \<Longrightarrow> atomic_ev P e"
  by (cases e) (auto simp: racq_ev_def atomic_ev_def)

lemma racq_rstore: "racq_ev P e \<Longrightarrow> \<not> rstore_ev P e"
  by (cases e) (auto simp: racq_ev_def rstore_ev_def)

lemma rd_not_rstore: "is_rd P e \<Longrightarrow> \<not> rstore_ev P e"
  by (cases e) (auto simp: rstore_ev_def dest: rd_part)

text \<open>Accesses of one location from two work-groups, one a write, are
  atomics at device scope or wider, but for a read of a remote store or a
  remote RMW, for a remote load that reads a work-group-scope atomic write,
  for a remote RMW against a work-group-scope atomic write, and for a
  remote store against a work-group-scope atomic write ([HRF14]
  sec. 4: a race-free
  program's conflicting accesses from two work-groups are atomics each in
  the other's scope; a scope that holds another work-group is the device's
  or the system's; [RSP15] sec. 5.1: promotion lets a remote release reach
  a work-group-scope acquire of another work-group, and a remote acquire a
  work-group-scope release).\<close>
definition sc_pair :: "src_program \<Rightarrow> sev \<Rightarrow> sev \<Rightarrow> bool" where
  "sc_pair P a b \<longleftrightarrow> wide_ev P a \<and> (wide_ev P b \<or> ((rstore_ev P a \<or> racq_ev P a) \<and> \<not> is_wr P b))
     \<or> (atomic_ev P a \<and> \<not> remote_ev P a \<and> (rload_ev P b \<or> racq_ev P b \<or> wide_ev P b \<and> rstore_ev P b))
     \<or> ((racq_ev P a \<or> wide_ev P a \<and> rstore_ev P a) \<and> is_wr P b \<and> atomic_ev P b \<and> \<not> remote_ev P b)"

text \<open>A program all of whose such pairs are so.\<close>
definition scoped_conflicts :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "scoped_conflicts L P \<longleftrightarrow> (\<forall>a b. is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
     \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> ewg L a \<noteq> ewg L b \<longrightarrow> sc_pair P a b)"

text \<open>A conflicting pair of two work-groups, as scoped_conflicts asks it.\<close>
lemma sc_pairD:
  assumes "scoped_conflicts L P" "is_wr P a" "is_rd P b \<or> is_wr P b" "sloc P a = sloc P b"
    "ewg L a \<noteq> None" "ewg L b \<noteq> None" "ewg L a \<noteq> ewg L b"
  shows "sc_pair P a b"
  using assms unfolding scoped_conflicts_def by blast

text \<open>So a write below device scope conflicts across work-groups only with
  remote acquires or remote stores, and is an atomic, not remote.\<close>
lemma sc_narrow:
  assumes sc: "scoped_conflicts L P" and e: "is_wr P e" "\<not> wide_ev P e"
    and b: "is_rd P b \<or> is_wr P b" "sloc P b = sloc P e" "ewg L e \<noteq> None" "ewg L b \<noteq> None" "ewg L b \<noteq> ewg L e"
  shows "(racq_ev P b \<or> rstore_ev P b) \<and> atomic_ev P e \<and> \<not> remote_ev P e"
proof -
  have "sc_pair P e b" using sc_pairD[OF sc e(1) b(1)] b(2-5) by auto
  then show ?thesis using e(2) racq_wide rload_racq unfolding sc_pair_def by blast
qed

text \<open>A location two work-groups access and that only atomics at device
  scope or wider write (one written at work-group scope is read from
  another work-group only by remote loads: scoped_conflicts).\<close>
definition wshared :: "layout \<Rightarrow> src_program \<Rightarrow> addr \<Rightarrow> bool" where
  "wshared L P x \<longleftrightarrow> shared L P x \<and> (\<forall>e. is_wr P e \<and> sloc P e = Some x \<and> ewg L e \<noteq> None \<longrightarrow> wide_ev P e)"

text \<open>A program without remote operations.\<close>
definition no_remote :: "src_program \<Rightarrow> bool" where
  "no_remote P \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>i < length (src_code P t). \<not> op_remote (ins P t i))"

text \<open>The threads an operation's scope holds without promotion ([HRF14]'s scope
  inclusion): its work-group's, its device's, or every thread.\<close>
definition reaches :: "layout \<Rightarrow> src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> tid \<Rightarrow> bool" where
  "reaches L P t i u \<longleftrightarrow> (case op_scope (ins P t i) of NonAtomic \<Rightarrow> False
     | WorkGroup \<Rightarrow> wg_of L u = wg_of L t
     | Device \<Rightarrow> dev_of L (wg_of L u) = dev_of L (wg_of L t)
     | AllDevices \<Rightarrow> True)"

text \<open>Remote operations that promote nothing: an access of another thread that
  conflicts with a remote one is an atomic in whose scope the remote one is,
  and the other way round, without promotion ([RSP15] sec. 5.1: promotion lets
  a remote operation reach the work-group-scope operations of other
  work-groups). A program without remote operations is one.\<close>
definition no_promotion :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "no_promotion L P \<longleftrightarrow> (\<forall>t i p u j q. is_wr P (Acc t i p) \<and> (is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)) \<and> t \<noteq> u
     \<and> sloc P (Acc t i p) = sloc P (Acc u j q) \<and> (op_remote (ins P t i) \<or> op_remote (ins P u j))
     \<longrightarrow> reaches L P t i u \<and> reaches L P u j t)"

lemma no_remote_promotion: "no_remote P \<Longrightarrow> no_promotion L P"
  by (auto simp: no_remote_def no_promotion_def acc_def)

text \<open>Remote operations that promote at most a work-group-scope atomic load
  of another work-group that reads a remote store ([RSP15] sec. 5.1): a
  conflicting pair with a remote operation is in each other's scope without
  promotion, or is a remote store whose scope holds an atomic load that
  writes nothing. A program whose remote operations promote nothing is
  one.\<close>
definition store_promotion :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "store_promotion L P \<longleftrightarrow> (\<forall>t i p u j q. is_wr P (Acc t i p) \<and> (is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)) \<and> t \<noteq> u
     \<and> sloc P (Acc t i p) = sloc P (Acc u j q) \<and> (op_remote (ins P t i) \<or> op_remote (ins P u j))
     \<longrightarrow> (reaches L P t i u \<and> reaches L P u j t)
       \<or> (rstore_ev P (Acc t i p) \<and> reaches L P t i u \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic))"

lemma no_promotion_store: "no_promotion L P \<Longrightarrow> store_promotion L P"
  unfolding no_promotion_def store_promotion_def by blast

text \<open>Remote operations that promote at most a work-group-scope atomic load of
  another work-group that reads a remote store or a remote RMW, or a
  work-group-scope atomic write of another work-group that a remote load or
  a remote RMW reads ([RSP15] sec. 5.1: a remote release synchronises with a
  work-group-scope acquire of another work-group, a remote acquire with a
  work-group-scope release): a conflicting pair with a remote
  operation is in each other's scope without promotion, or a remote store
  or a remote RMW whose scope holds an atomic access that writes nothing
  (a load, or an RMW's read), or a remote load
  whose scope holds an atomic write that is not remote, or a remote RMW
  whose scope holds an atomic write that is not remote (a store or an RMW;
  the remote RMW's read and write against it), or a remote store whose
  scope holds an atomic write that is not remote (both ways round). A
  program whose remote operations promote at most loads by remote stores
  is one.\<close>
definition load_promotion :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "load_promotion L P \<longleftrightarrow> (\<forall>t i p u j q. is_wr P (Acc t i p) \<and> (is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)) \<and> t \<noteq> u
     \<and> sloc P (Acc t i p) = sloc P (Acc u j q) \<and> (op_remote (ins P t i) \<or> op_remote (ins P u j))
     \<longrightarrow> (reaches L P t i u \<and> reaches L P u j t)
       \<or> ((rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x))
          \<and> reaches L P t i u \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic)
       \<or> (((\<exists>sc r x. ins P u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins P u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins P u j = Op (Store sc True) r x))
          \<and> reaches L P u j t \<and> \<not> op_remote (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic)
       \<or> ((rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x)) \<and> reaches L P t i u \<and> is_wr P (Acc u j q)
          \<and> \<not> op_remote (ins P u j) \<and> op_scope (ins P u j) \<noteq> NonAtomic))"

lemma store_promotion_load: "store_promotion L P \<Longrightarrow> load_promotion L P"
  unfolding store_promotion_def load_promotion_def
  apply (intro allI impI)
  apply (drule spec)+
  apply (drule (1) mp)
  apply (elim disjE)
   apply (rule disjI1, assumption)
  apply (rule disjI2, rule disjI1, blast)
  done

text \<open>An access tagged remote is of a remote operation.\<close>
lemma tag_remote_op:
  assumes "enc (Acc t i p) \<in> tag (src_exec L P f cs) ''remote''"
  shows "op_remote (ins P t i)"
proof -
  have e: "Acc t i p \<in> src_tags P ''remote''" using assms(1) by (simp add: tag_XS)
  have n: "''remote'' \<notin> scope_names" "''remote'' \<notin> mo_names" by eval+
  have "acc P t i p \<and> (''remote'' = scope_tag (op_scope (ins P t i)) \<or> ''remote'' = mo_tag (ins P t i) \<or> op_remote (ins P t i))"
    using e unfolding src_tags_def by auto
  then show ?thesis using n scope_tag_cases mo_tag_cases by metis
qed

text \<open>Scope inclusion without promotion is the model's n82.\<close>
lemma reaches_n82:
  assumes a: "acc P t i p" and b: "acc P u j q" and r: "reaches L P t i u"
  shows "(enc (Acc t i p), enc (Acc u j q)) \<in> opencl_rsp_n82 (src_exec L P f cs)"
proof -
  let ?X = "src_exec L P f cs"
  have ev: "enc (Acc t i p) \<in> events ?X" "enc (Acc u j q) \<in> events ?X" using a b by (simp_all add: events_XS)
  have tg: "enc (Acc t i p) \<in> tag ?X s" if "s = scope_tag (op_scope (ins P t i))" "op_scope (ins P t i) \<noteq> NonAtomic"
      "s \<in> {''wg'', ''dev'', ''all''}" for s
  proof -
    have "Acc t i p \<in> src_tags P s" using a that unfolding src_tags_def by auto
    then show ?thesis by (simp add: tag_XS)
  qed
  have st: "(enc (Acc t i p), enc (Acc u j q)) \<in> same_thread_attr ?X s"
    if "s = ''wg'' \<and> wg_of L u = wg_of L t \<or> s = ''dev'' \<and> dev_of L (wg_of L u) = dev_of L (wg_of L t)" for s
    using ev that by (auto simp: same_thread_attr_def pairs_where_def src_exec_def)
  show ?thesis
  proof (cases "op_scope (ins P t i)")
    case NonAtomic
    then show ?thesis using r by (simp add: reaches_def)
  next
    case WorkGroup
    then have "enc (Acc t i p) \<in> tag ?X ''wg''" using tg by (simp add: scope_tag_def)
    moreover have "(enc (Acc t i p), enc (Acc u j q)) \<in> same_thread_attr ?X ''wg''"
      using st r WorkGroup by (simp add: reaches_def)
    ultimately show ?thesis unfolding opencl_rsp_n82_def by blast
  next
    case Device
    then have "enc (Acc t i p) \<in> tag ?X ''dev''" using tg by (simp add: scope_tag_def)
    moreover have "(enc (Acc t i p), enc (Acc u j q)) \<in> same_thread_attr ?X ''dev''"
      using st r Device by (simp add: reaches_def)
    ultimately show ?thesis unfolding opencl_rsp_n82_def by blast
  next
    case AllDevices
    then have "enc (Acc t i p) \<in> tag ?X ''all''" using tg by (simp add: scope_tag_def)
    moreover have "(enc (Acc t i p), enc (Acc u j q)) \<in> universal ?X" using ev by (simp add: universal_def)
    ultimately show ?thesis unfolding opencl_rsp_n82_def by blast
  qed
qed

lemma tag_scope:
  assumes "enc (Acc t i p) \<in> tag (src_exec L P f cs) s" "s \<in> {''wg'', ''dev'', ''all''}"
  shows "s = scope_tag (op_scope (ins P t i))"
proof -
  have e: "Acc t i p \<in> src_tags P s" using assms(1) by (simp add: tag_XS)
  have n: "s \<notin> src_tag_names" "s \<notin> mo_names"
    using assms(2) names_apart(2) by (auto simp: scoped_names_def mo_names_def)
  show ?thesis using tags_cases[OF e] n mo_tag_cases by auto
qed

lemma same_wg_XS: "(enc (Acc t i p), enc (Acc u j q)) \<in> same_thread_attr (src_exec L P f cs) ''wg''
    \<Longrightarrow> wg_of L t = wg_of L u"
  by (auto simp: same_thread_attr_def pairs_where_def src_exec_def)

text \<open>Scope inclusion between threads of two work-groups: the first's scope
  is the device's or the system's.\<close>
lemma n82_wide:
  assumes n: "(enc (Acc t i p), enc (Acc u j q)) \<in> opencl_rsp_n82 (src_exec L P f cs)"
    and wg: "wg_of L t \<noteq> wg_of L u"
  shows "op_scope (ins P t i) \<in> {Device, AllDevices}"
proof -
  let ?X = "src_exec L P f cs"
  consider "enc (Acc t i p) \<in> tag ?X ''wi''" | "enc (Acc t i p) \<in> tag ?X ''sg''"
    | "(enc (Acc t i p), enc (Acc u j q)) \<in> same_thread_attr ?X ''wg''"
    | "enc (Acc t i p) \<in> tag ?X ''dev''" | "enc (Acc t i p) \<in> tag ?X ''all''"
    using n unfolding opencl_rsp_n82_def by blast
  then show ?thesis
  proof cases
    case 3
    then show ?thesis using same_wg_XS wg by blast
  next
    case 4
    then have "''dev'' = scope_tag (op_scope (ins P t i))" using tag_scope by blast
    then show ?thesis by (cases "op_scope (ins P t i)") (simp_all add: scope_tag_def)
  next
    case 5
    then have "''all'' = scope_tag (op_scope (ins P t i))" using tag_scope by blast
    then show ?thesis by (cases "op_scope (ins P t i)") (simp_all add: scope_tag_def)
  qed simp_all
qed

text \<open>An access's read part: the access itself, or its RMW's read.\<close>
lemma acc_false:
  assumes a: "acc P u j q" shows "acc P u j False"
proof (cases q)
  case True
  then have "wr (ins P u j) True" using a rd_part by (fastforce simp: acc_def)
  then obtain sc rm r x where "ins P u j = Op (FetchInc sc rm) r x" using wr_part by blast
  then show ?thesis using a by (simp add: acc_def)
qed (use a in simp)

text \<open>Of a race-free program whose remote operations promote at most remote
  stores to atomic loads, and without non-atomic RMWs, a write and a
  conflicting access of another thread are each in the other's scope
  (Hrf_Source_Opencl's race_free_conflicts_incl; without promotion, scope
  inclusion is the model's n82 both ways), or the write is a remote store
  whose scope holds an atomic load.\<close>
lemma race_free_n82:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and rem: "load_promotion L P"
    and a: "is_wr P (Acc t i p)" and b: "is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)" and tu: "t \<noteq> u"
    and same: "sloc P (Acc t i p) = sloc P (Acc u j q)"
  shows "((enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
    \<and> (enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {}))
    \<or> ((enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x))
       \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic)
    \<or> ((enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> ((\<exists>sc r x. ins P u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins P u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins P u j = Op (Store sc True) r x))
       \<and> \<not> op_remote (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic)
    \<or> ((enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x)) \<and> is_wr P (Acc u j q)
       \<and> \<not> op_remote (ins P u j) \<and> op_scope (ins P u j) \<noteq> NonAtomic)"
proof -
  have acc_a: "acc P t i p" "wr (ins P t i) p" using a by auto
  have acc_b: "acc P u j q" using b by auto
  have acc_b0: "acc P u j False" using acc_false[OF acc_b] .
  show ?thesis
  proof (cases "op_remote (ins P t i) \<or> op_remote (ins P u j)")
    case True
    have pre: "is_wr P (Acc t i p) \<and> (is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)) \<and> t \<noteq> u
      \<and> sloc P (Acc t i p) = sloc P (Acc u j q) \<and> (op_remote (ins P t i) \<or> op_remote (ins P u j))"
      using a b tu same True by blast
    have "(reaches L P t i u \<and> reaches L P u j t)
       \<or> ((rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x))
          \<and> reaches L P t i u \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic)
       \<or> (((\<exists>sc r x. ins P u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins P u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins P u j = Op (Store sc True) r x))
          \<and> reaches L P u j t \<and> \<not> op_remote (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic)
       \<or> ((rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x)) \<and> reaches L P t i u \<and> is_wr P (Acc u j q)
          \<and> \<not> op_remote (ins P u j) \<and> op_scope (ins P u j) \<noteq> NonAtomic)"
      using mp[OF rem[unfolded load_promotion_def, THEN spec[of _ t], THEN spec[of _ i], THEN spec[of _ p],
          THEN spec[of _ u], THEN spec[of _ j], THEN spec[of _ q]] pre] .
    moreover note n1 = reaches_n82[OF acc_a(1) acc_b0] and n2 = reaches_n82[OF acc_b0 acc_a(1)]
    ultimately show ?thesis
    proof (elim disjE)
      assume "reaches L P t i u \<and> reaches L P u j t"
      then show ?thesis using n1 n2 by (intro disjI1) blast
    next
      assume "(rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x))
          \<and> reaches L P t i u \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
      then show ?thesis using n1 by (intro disjI2 disjI1) blast
    next
      assume "((\<exists>sc r x. ins P u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins P u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins P u j = Op (Store sc True) r x))
          \<and> reaches L P u j t \<and> \<not> op_remote (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic"
      then show ?thesis using n2 by (intro disjI2 disjI1) blast
    next
      assume "(rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x)) \<and> reaches L P t i u \<and> is_wr P (Acc u j q)
          \<and> \<not> op_remote (ins P u j) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
      then show ?thesis using n1 by (intro disjI2) blast
    qed
  next
    case False
    have sm: "addr_of (ins P u j) = addr_of (ins P t i)" using same by simp
    have n90: "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n90 (src_exec L P (\<lambda>r. r) {})"
      using race_free_conflicts_incl[OF nr rfree fin acc_a acc_b0 tu sm] .
    let ?X = "src_exec L P (\<lambda>r. r) {}"
    have n86: "(enc c, d) \<notin> opencl_rsp_n86 ?X" "(d, enc c) \<notin> opencl_rsp_n86 ?X"
      if "c = Acc t i p \<or> c = Acc u j False" for c d
    proof -
      have "enc c \<notin> tag ?X ''remote''" using that False tag_remote_op by blast
      then show "(enc c, d) \<notin> opencl_rsp_n86 ?X" "(d, enc c) \<notin> opencl_rsp_n86 ?X"
        by (auto simp: opencl_rsp_n86_def)
    qed
    show ?thesis
      using n90 n86[of "Acc t i p"] n86[of "Acc u j False"]
      unfolding opencl_rsp_n90_def opencl_rsp_n83_def conv_is_converse by blast
  qed
qed

text \<open>So such a program has scoped conflicts.\<close>
theorem race_free_scoped:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and rem: "load_promotion L P"
  shows "scoped_conflicts L P"
  unfolding scoped_conflicts_def
proof (intro allI impI)
  fix a b assume h: "is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
    \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> ewg L a \<noteq> ewg L b"
  obtain t i p where a: "a = Acc t i p" using h by (cases a) auto
  obtain u j q where b: "b = Acc u j q" using h by (cases b) auto
  have wg: "wg_of L t \<noteq> wg_of L u" using h a b by simp
  then have tu: "t \<noteq> u" by auto
  have hw: "is_wr P (Acc t i p)" "is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)"
    "sloc P (Acc t i p) = sloc P (Acc u j q)"
    using h a b by simp_all
  from race_free_n82[OF nr rfree fin rem hw(1,2) tu hw(3)]
  show "sc_pair P a b"
  proof (elim disjE)
    assume "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
      \<and> (enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})"
    then have "op_scope (ins P t i) \<in> {Device, AllDevices}" "op_scope (ins P u j) \<in> {Device, AllDevices}"
      using n82_wide wg by (blast, metis)
    then show ?thesis using a b by (simp add: wide_ev_def sc_pair_def)
  next
    assume h2: "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x))
       \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
    then have sc2: "op_scope (ins P t i) \<in> {Device, AllDevices}" using n82_wide wg by blast
    then have "wide_ev P a" using a by (simp add: wide_ev_def)
    moreover have "rstore_ev P a \<or> racq_ev P a" using h2 sc2 a by (auto simp: racq_ev_def)
    moreover have "\<not> is_wr P b" using h2 b by simp
    ultimately show ?thesis unfolding sc_pair_def by blast
  next
    assume h3: "(enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> ((\<exists>sc r x. ins P u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins P u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins P u j = Op (Store sc True) r x))
       \<and> \<not> op_remote (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic"
    then have "op_scope (ins P u j) \<in> {Device, AllDevices}" using n82_wide wg by metis
    then show ?thesis using a b h3 by (auto simp: atomic_ev_def remote_ev_def rload_ev_def racq_ev_def rstore_ev_def wide_ev_def sc_pair_def)
  next
    assume h4: "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x)) \<and> is_wr P (Acc u j q)
       \<and> \<not> op_remote (ins P u j) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
    then have "op_scope (ins P t i) \<in> {Device, AllDevices}" using n82_wide wg by blast
    then show ?thesis using a b h4 by (auto simp: atomic_ev_def remote_ev_def racq_ev_def rstore_ev_def wide_ev_def sc_pair_def)
  qed
qed

text \<open>Scope inclusion between threads of two devices: the first's scope is
  the system's.\<close>
lemma n82_sys:
  assumes n: "(enc (Acc t i p), enc (Acc u j q)) \<in> opencl_rsp_n82 (src_exec L P f cs)"
    and dv: "dev_of L (wg_of L t) \<noteq> dev_of L (wg_of L u)"
  shows "op_scope (ins P t i) = AllDevices"
proof (rule ccontr)
  let ?X = "src_exec L P f cs"
  assume na: "op_scope (ins P t i) \<noteq> AllDevices"
  have "enc (Acc t i p) \<notin> tag ?X ''all''"
  proof
    assume "enc (Acc t i p) \<in> tag ?X ''all''"
    then have "''all'' = scope_tag (op_scope (ins P t i))" using tag_scope by blast
    then show False using na by (cases "op_scope (ins P t i)") (simp_all add: scope_tag_def)
  qed
  moreover have "(enc (Acc t i p), enc (Acc u j q)) \<notin> same_thread_attr ?X a" for a
    using dv by (auto simp: same_thread_attr_def pairs_where_def src_exec_def split: if_splits)
  ultimately show False using n unfolding opencl_rsp_n82_def by blast
qed

text \<open>Two accesses of two devices each in the other's scope: atomics at
  all-devices scope, or a remote one at all-devices scope whose scope holds
  the other, an atomic ([RSP15] sec. 5.1's promotion across devices).\<close>
definition xdev_pair :: "src_program \<Rightarrow> sev \<Rightarrow> sev \<Rightarrow> bool" where
  "xdev_pair P a b \<longleftrightarrow> (sys_ev P a \<and> sys_ev P b) \<or> (sys_ev P a \<and> remote_ev P a \<and> atomic_ev P b)
     \<or> (sys_ev P b \<and> remote_ev P b \<and> atomic_ev P a)"

definition dev_scoped :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "dev_scoped L P \<longleftrightarrow> (\<forall>a b. is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
     \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> dv L a \<noteq> dv L b \<longrightarrow> xdev_pair P a b)"

text \<open>So in a race-free program (as race_free_scoped) a write and a conflicting
  access of two devices are such a pair: two devices share a written
  location only through all-devices atomics, or through a remote
  all-devices operation and an atomic its scope holds.\<close>
theorem race_free_dev_scoped:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and rem: "load_promotion L P"
  shows "dev_scoped L P"
  unfolding dev_scoped_def
proof (intro allI impI)
  fix a b assume h: "is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
    \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> dv L a \<noteq> dv L b"
  obtain t i p where a: "a = Acc t i p" using h by (cases a) auto
  obtain u j q where b: "b = Acc u j q" using h by (cases b) auto
  have dvs: "dev_of L (wg_of L t) \<noteq> dev_of L (wg_of L u)" using h a b by (simp add: dv_def)
  then have tu: "t \<noteq> u" by auto
  have hw: "is_wr P (Acc t i p)" "is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)"
    "sloc P (Acc t i p) = sloc P (Acc u j q)"
    using h a b by simp_all
  have ta: "sys_ev P a" if "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})"
    using n82_sys[OF that dvs] a by (simp add: sys_ev_def)
  have tb: "sys_ev P b" if "(enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})"
    using n82_sys[OF that] dvs b by (simp add: sys_ev_def)
  from race_free_n82[OF nr rfree fin rem hw(1,2) tu hw(3)]
  show "xdev_pair P a b"
  proof (elim disjE)
    assume "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
      \<and> (enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})"
    then show ?thesis using ta tb by (simp add: xdev_pair_def)
  next
    assume h2: "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x))
       \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
    then show ?thesis using ta a b
      by (auto simp: xdev_pair_def remote_ev_def atomic_ev_def rstore_ev_def)
  next
    assume h3: "(enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> ((\<exists>sc r x. ins P u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins P u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins P u j = Op (Store sc True) r x))
       \<and> \<not> op_remote (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic"
    then show ?thesis using tb a b by (auto simp: xdev_pair_def remote_ev_def atomic_ev_def)
  next
    assume h4: "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x)) \<and> is_wr P (Acc u j q)
       \<and> \<not> op_remote (ins P u j) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
    then show ?thesis using ta a b
      by (auto simp: xdev_pair_def remote_ev_def atomic_ev_def rstore_ev_def)
  qed
qed

text \<open>The operations that write at device scope or wider.\<close>
fun wide_wr_op :: "src_op \<Rightarrow> bool" where
  "wide_wr_op (Store sc rm) = (sc \<in> {Device, AllDevices})"
| "wide_wr_op (FetchInc sc rm) = (sc \<in> {Device, AllDevices})"
| "wide_wr_op (Load sc rm) = False"

text \<open>A row whose visible instruction comes after a flush of the L1 with
  only quiet instructions between.\<close>
definition vis_flushed :: "row \<Rightarrow> bool" where
  "vis_flushed rw \<longleftrightarrow> (\<forall>r x. flq visible False (rw r x))"

text \<open>[RSP15] sec. 6: a release at device scope flushes the L1 first
  (rsp-new's FLUL1 WG before ST and before RMWL2), and an RMW at device
  scope is performed at the L2.\<close>
definition rel_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> src_op set \<Rightarrow> bool" where
  "rel_rows S A B \<longleftrightarrow> (\<forall>a \<in> A \<union> B. wide_wr_op a \<longrightarrow> (\<exists>rw. S a = Some rw \<and> vis_flushed rw)
     \<and> (\<forall>sc rm. a = FetchInc sc rm \<longrightarrow> a \<in> B))"

lemma wr_unique: "wr c p \<Longrightarrow> wr c q \<Longrightarrow> p = q"
  by (cases "(c, p)" rule: wr.cases) auto

lemma flushed_prefix: "flushed xs n \<Longrightarrow> n < length xs \<Longrightarrow> flushed (xs @ ys) n"
  unfolding flushed_def by (auto simp: nth_append)

text \<open>The visible instruction at position n of compiled code is the access
  of the row of its source instruction.\<close>
lemma compiled_row:
  assumes rows: "l1_rows S A" "l2_rows S B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x"
  shows "\<exists>rw pre post m. a \<in> A \<union> B \<and> S a = Some rw \<and> concat (map (compile_instr S) c) = pre @ rw r x @ post
    \<and> n = length pre + m \<and> m < length (rw r x) \<and> visible (rw r x ! m)"
  using rows(3) n k w
proof (induction c arbitrary: n k)
  case Nil
  then show ?case by simp
next
  case (Cons i c)
  define ys where "ys = compile_instr S i"
  define zs where "zs = concat (map (compile_instr S) c)"
  have xs: "concat (map (compile_instr S) (i # c)) = ys @ zs" by (simp add: ys_def zs_def)
  have oi: "op_of i \<subseteq> A \<union> B" using Cons.prems(1) by simp
  have one: "filter visible ys = [src_access B i]"
    using compiled_code(1)[OF rows(1,2), of "[i]"] oi by (simp add: ys_def)
  show ?case
  proof (cases "n < length ys")
    case True
    have v: "visible (ys ! n)" using Cons.prems(3) True by (simp add: nth_append ys_def zs_def)
    have "length (filter visible (take n ys)) < length (filter visible ys)"
      using filter_take_nth(1)[OF True, of visible] v .
    then have "length (filter visible (take n ys)) = 0" using one by simp
    then have k0: "k = 0" using Cons.prems(4) True by (simp add: ys_def zs_def)
    then have ia: "i = Op a r x" using Cons.prems(5) by simp
    then have "a \<in> A \<union> B" using oi by (simp add: op_of_def)
    moreover obtain rw where rw: "S a = Some rw" using rows(1,2) \<open>a \<in> A \<union> B\<close> by (auto simp: l1_rows_def l2_rows_def)
    moreover have "ys = rw r x" using ia rw by (simp add: ys_def compile_instr_def)
    ultimately show ?thesis using xs True v by (intro exI[of _ rw] exI[of _ "[]"] exI[of _ zs] exI[of _ n]) simp
  next
    case False
    define n' where "n' = n - length ys"
    have nn: "n = length ys + n'" using False by (simp add: n'_def)
    have tk: "take n (ys @ zs) = ys @ take n' zs" using nn by simp
    then have "k = Suc (length (filter visible (take n' zs)))" using Cons.prems(4) one by (simp add: ys_def zs_def)
    then obtain k' where k': "k = Suc k'" "length (filter visible (take n' zs)) = k'" by blast
    have "n' < length zs" "visible (zs ! n')" using Cons.prems(2,3) nn by (simp_all add: nth_append ys_def zs_def)
    moreover have "c ! k' = Op a r x" using Cons.prems(5) k'(1) by simp
    ultimately obtain rw pre post m where "a \<in> A \<union> B" "S a = Some rw" "zs = pre @ rw r x @ post" "n' = length pre + m"
        "m < length (rw r x)" "visible (rw r x ! m)"
      using Cons.IH[of n' k'] Cons.prems(1) k'(2) unfolding zs_def by auto
    then show ?thesis using xs nn by (intro exI[of _ rw] exI[of _ "ys @ pre"] exI[of _ post] exI[of _ m]) simp
  qed
qed

text \<open>So in code compiled by such rows, the access of a write at device
  scope or wider is flushed.\<close>
lemma compiled_vis_flushed:
  assumes rows: "l1_rows S A" "l2_rows S B" "rel_rows S A B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x" "wide_wr_op a"
  shows "flushed (concat (map (compile_instr S) c)) n"
proof -
  obtain rw pre post m where rw: "a \<in> A \<union> B" "S a = Some rw" "concat (map (compile_instr S) c) = pre @ rw r x @ post"
      "n = length pre + m" "m < length (rw r x)" "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "vis_flushed rw" using rows(3) w(2) rw(1,2) by (auto simp: rel_rows_def)
  then have "flushed (rw r x) m" using rw(5,6) flq_flushed[of visible False "rw r x" m] unfolding vis_flushed_def by simp
  then have "flushed (rw r x @ post) m" using flushed_prefix rw(5) by blast
  then show ?thesis using flushed_append[of "rw r x @ post" m pre] rw(3,4) by simp
qed

text \<open>A flush of the L1.\<close>
fun flul1 :: "instr \<Rightarrow> bool" where
  "flul1 (FLUL1 _) = True"
| "flul1 _ = False"

lemma quiet_vis: "quiet i \<Longrightarrow> \<not> visible i"
  by (cases i) auto

text \<open>fl_next xs: xs starts with quiet instructions, none a flush or an
  invalidation of the L1, and then a flush of the L1s of the device or
  wider.\<close>
fun fl_next :: "instr list \<Rightarrow> bool" where
  "fl_next [] = False"
| "fl_next (i # xs) = (case i of FLUL1 sc \<Rightarrow> sc \<noteq> WG | INVL1 sc \<Rightarrow> False | _ \<Rightarrow> quiet i \<and> fl_next xs)"

lemma fl_next_idx:
  "fl_next ys \<Longrightarrow> \<exists>f < length ys. (\<exists>sc. ys ! f = FLUL1 sc \<and> sc \<noteq> WG)
     \<and> (\<forall>m < f. quiet (ys ! m) \<and> \<not> flul1 (ys ! m) \<and> (\<forall>sc. ys ! m \<noteq> INVL1 sc))"
proof (induction ys)
  case Nil
  then show ?case by simp
next
  case (Cons i ys)
  show ?case
  proof (cases "\<exists>sc. i = FLUL1 sc")
    case True
    then show ?thesis using Cons.prems by auto
  next
    case nf: False
    have ni: "\<forall>sc. i \<noteq> INVL1 sc" using Cons.prems by (cases i) auto
    have nfl: "\<not> flul1 i" using nf by (cases i) auto
    have q: "quiet i \<and> fl_next ys" using Cons.prems nf ni by (cases i) auto
    obtain f where f: "f < length ys" "\<exists>sc. ys ! f = FLUL1 sc \<and> sc \<noteq> WG"
        "\<forall>m < f. quiet (ys ! m) \<and> \<not> flul1 (ys ! m) \<and> (\<forall>sc. ys ! m \<noteq> INVL1 sc)"
      using Cons.IH q by blast
    have "\<forall>m < Suc f. quiet ((i # ys) ! m) \<and> \<not> flul1 ((i # ys) ! m) \<and> (\<forall>sc. (i # ys) ! m \<noteq> INVL1 sc)"
    proof (intro allI impI)
      fix m assume m: "m < Suc f"
      show "quiet ((i # ys) ! m) \<and> \<not> flul1 ((i # ys) ! m) \<and> (\<forall>sc. (i # ys) ! m \<noteq> INVL1 sc)"
      proof (cases m)
        case 0
        then show ?thesis using q nfl ni by simp
      next
        case (Suc m')
        then show ?thesis using f(3) m by simp
      qed
    qed
    then show ?thesis using f(1,2) by (intro exI[of _ "Suc f"]) auto
  qed
qed

text \<open>A row whose visible instruction is followed by a flush of the L1s of
  the device or wider, with only quiet instructions between, none a flush
  or an invalidation of the L1.\<close>
definition rl_after :: "row \<Rightarrow> bool" where
  "rl_after rw \<longleftrightarrow> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> fl_next (drop (Suc m) (rw r x)))"

text \<open>A remote acquire's operation: a remote load or a remote RMW at device
  scope or wider.\<close>
fun racq_op :: "src_op \<Rightarrow> bool" where
  "racq_op (Load sc rm) = (rm \<and> sc \<in> {Device, AllDevices})"
| "racq_op (FetchInc sc rm) = (rm \<and> sc \<in> {Device, AllDevices})"
| "racq_op (Store sc rm) = False"

lemma racq_ev_op: "racq_ev P (Acc t k p) \<Longrightarrow> \<exists>a r x. ins P t k = Op a r x \<and> racq_op a"
  by (auto simp: racq_ev_def)

text \<open>[RSP15] sec. 6: a remote acquire flushes the L1s of its device after
  its access, before it invalidates its own L1 (rsp-new's LD; FLUL1 DV;
  INVL1 WG, and its remote RMW's RMWL2; FLUL1 DV; INVL1 DV): what it learns
  from a work-group-scope release of another work-group may still wait in
  that work-group's L1. A remote RMW is performed at the L2.\<close>
definition rl_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> src_op set \<Rightarrow> bool" where
  "rl_rows S A B \<longleftrightarrow> (\<forall>sc \<in> {Device, AllDevices}. (Load sc True \<in> A \<union> B
     \<longrightarrow> (\<exists>rw. S (Load sc True) = Some rw \<and> rl_after rw))
     \<and> (FetchInc sc True \<in> A \<union> B \<longrightarrow> FetchInc sc True \<in> B \<and> (\<exists>rw. S (FetchInc sc True) = Some rw \<and> rl_after rw)))"

lemmas rl_simps = rl_rows_def rl_after_def numeral_eq_Suc All_less_Suc

text \<open>So in code compiled by such rows, a remote acquire's access is followed
  by such a flush.\<close>
lemma compiled_rl:
  assumes rows: "l1_rows S A" "l2_rows S B" "rl_rows S A B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x" "racq_op a"
  shows "\<exists>f. n < f \<and> f < length (concat (map (compile_instr S) c))
    \<and> (\<exists>sc'. concat (map (compile_instr S) c) ! f = FLUL1 sc' \<and> sc' \<noteq> WG)
    \<and> (\<forall>m. n < m \<and> m < f \<longrightarrow> quiet (concat (map (compile_instr S) c) ! m)
        \<and> \<not> flul1 (concat (map (compile_instr S) c) ! m) \<and> (\<forall>sc'. concat (map (compile_instr S) c) ! m \<noteq> INVL1 sc'))"
proof -
  define xs where "xs = concat (map (compile_instr S) c)"
  obtain rw pre post m where rw: "a \<in> A \<union> B" "S a = Some rw" "xs = pre @ rw r x @ post"
      "n = length pre + m" "m < length (rw r x)" "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] unfolding xs_def by blast
  have "rl_after rw"
  proof (cases a)
    case (Load sc rm)
    have sc: "rm" "sc \<in> {Device, AllDevices}" using w(2) Load by simp_all
    have "Load sc True \<in> A \<union> B \<longrightarrow> (\<exists>rw. S (Load sc True) = Some rw \<and> rl_after rw)"
      using rows(3) sc(2) unfolding rl_rows_def by blast
    then show ?thesis using rw(1,2) Load sc(1) by auto
  next
    case (FetchInc sc rm)
    have sc: "rm" "sc \<in> {Device, AllDevices}" using w(2) FetchInc by simp_all
    have "FetchInc sc True \<in> A \<union> B \<longrightarrow> (\<exists>rw. S (FetchInc sc True) = Some rw \<and> rl_after rw)"
      using rows(3) sc(2) unfolding rl_rows_def by blast
    then show ?thesis using rw(1,2) FetchInc sc(1) by auto
  next
    case (Store sc rm)
    then show ?thesis using w(2) by simp
  qed
  then have "fl_next (drop (Suc m) (rw r x))" using rw(5,6) by (simp add: rl_after_def)
  then obtain f where f: "f < length (drop (Suc m) (rw r x))" "\<exists>sc'. drop (Suc m) (rw r x) ! f = FLUL1 sc' \<and> sc' \<noteq> WG"
      "\<forall>m' < f. quiet (drop (Suc m) (rw r x) ! m') \<and> \<not> flul1 (drop (Suc m) (rw r x) ! m')
         \<and> (\<forall>sc'. drop (Suc m) (rw r x) ! m' \<noteq> INVL1 sc')"
    using fl_next_idx by blast
  have ix: "xs ! (Suc n + i) = drop (Suc m) (rw r x) ! i" if "i < length (drop (Suc m) (rw r x))" for i
  proof -
    have "Suc m + i < length (rw r x)" using that by simp
    moreover have "Suc n + i = length pre + (Suc m + i)" using rw(4) by simp
    ultimately show ?thesis using rw(3) by (simp add: nth_append)
  qed
  have lf: "Suc n + f < length xs" using rw(3,4) f(1) by simp
  have in_f: "quiet (xs ! m') \<and> \<not> flul1 (xs ! m') \<and> (\<forall>sc'. xs ! m' \<noteq> INVL1 sc')"
    if m': "n < m'" "m' < Suc n + f" for m'
  proof -
    define i where "i = m' - Suc n"
    have i: "i < f" "m' = Suc n + i" using m' by (auto simp: i_def)
    have "xs ! m' = drop (Suc m) (rw r x) ! i" using ix[of i] i f(1) by simp
    then show ?thesis using f(3) i(1) by simp
  qed
  have "n < Suc n + f \<and> Suc n + f < length xs \<and> (\<exists>sc'. xs ! (Suc n + f) = FLUL1 sc' \<and> sc' \<noteq> WG)
    \<and> (\<forall>m'. n < m' \<and> m' < Suc n + f \<longrightarrow> quiet (xs ! m') \<and> \<not> flul1 (xs ! m') \<and> (\<forall>sc'. xs ! m' \<noteq> INVL1 sc'))"
    using lf f(2) ix[OF f(1)] in_f by auto
  then show ?thesis unfolding xs_def by blast
qed

text \<open>Where position j of a code is visible and only quiet instructions
  follow it up to n, j is the code's last visible instruction before n.\<close>
lemma vis_count:
  assumes j: "j < n" "j < length xs" "visible (xs ! j)" and q: "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m)"
  shows "length (filter visible (take n xs)) = Suc (length (filter visible (take j xs)))"
proof -
  have tn: "take n xs = (take j xs @ [xs ! j]) @ take (n - Suc j) (drop (Suc j) xs)"
  proof -
    have "take n xs = take (Suc j + (n - Suc j)) xs" using j(1) by simp
    also have "\<dots> = take (Suc j) xs @ take (n - Suc j) (drop (Suc j) xs)" by (rule take_add)
    also have "take (Suc j) xs = take j xs @ [xs ! j]" using j(1,2) by (simp add: take_Suc_conv_app_nth)
    finally show ?thesis .
  qed
  have "filter visible (take (n - Suc j) (drop (Suc j) xs)) = []"
  proof (rule filter_False, intro ballI)
    fix y assume "y \<in> set (take (n - Suc j) (drop (Suc j) xs))"
    then obtain i where i: "i < length (take (n - Suc j) (drop (Suc j) xs))" "y = take (n - Suc j) (drop (Suc j) xs) ! i"
      by (auto simp: in_set_conv_nth)
    then have "y = xs ! (Suc j + i)" "Suc j + i < n" using j(1,2) by auto
    then show "\<not> visible y" using q quiet_vis by auto
  qed
  then show ?thesis using tn j(3) by simp
qed

section \<open>The invariants\<close>

text \<open>The writes an access knows: those observed by the accesses up to it
  in happens-before, its own among them.\<close>
definition knows_at :: "layout \<Rightarrow> src_program \<Rightarrow> ghost \<Rightarrow> sev \<Rightarrow> sev \<Rightarrow> bool" where
  "knows_at L P g c e \<longleftrightarrow> (\<exists>b. (is_wr P b \<or> is_rd P b) \<and> (b = c \<or> (b, c) \<in> hbm L P g) \<and> ob P g b = e)"

text \<open>Position n of a code comes before an invalidation of the L1, with only
  quiet instructions between.\<close>
definition win :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "win xs n \<longleftrightarrow> (\<exists>j. n \<le> j \<and> j < length xs \<and> (\<exists>sc. xs ! j = INVL1 sc) \<and> (\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m)))"

text \<open>A location that a work-group other than w writes, other than by a
  remote store (whose knowledge is fresh in every L1 of its device: rp_ok).\<close>
definition fw :: "layout \<Rightarrow> src_program \<Rightarrow> wid \<Rightarrow> addr option \<Rightarrow> bool" where
  "fw L P w xo \<longleftrightarrow> (\<exists>e. is_wr P e \<and> sloc P e = xo \<and> ewg L e \<noteq> None \<and> ewg L e \<noteq> Some w \<and> \<not> rstore_ev P e)"

text \<open>The write an access performed observes, of the access's location.\<close>
lemma ob_wx_done: "ev_inv S P s g \<Longrightarrow> is_wr P b \<or> is_rd P b \<Longrightarrow> done_ev S P s b \<Longrightarrow> sloc P b = Some y
    \<Longrightarrow> wx S P s y (ob P g b)"
  using ev_parts(2) by (auto simp: ob_def wx_def)

lemma knows_at_keep:
  assumes ei: "ev_inv S P s g" and gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" and d: "done_ev S P s c"
  shows "knows_at L P g' c = knows_at L P g c"
proof -
  have "(b = c \<or> (b, c) \<in> hbm L P g') \<longleftrightarrow> (b = c \<or> (b, c) \<in> hbm L P g)" for b
  proof -
    have "(b, c) \<in> hbm L P g \<Longrightarrow> (b, c) \<in> hbm L P g'"
    proof -
      assume h: "(b, c) \<in> hbm L P g"
      have "(x, y) \<in> src_po P \<union> swm L P g'" if "(x, y) \<in> src_po P \<union> swm L P g" "done_ev S P s y" for x y
        using that gr by (auto simp: swm_def)
      have "done_ev S P s c \<longrightarrow> (b, c) \<in> hbm L P g'" using h[unfolded hbm_def]
      proof (induction rule: trancl_induct)
        case (base y)
        then show ?case using gr unfolding hbm_def by (auto simp: swm_def)
      next
        case (step y z)
        then have "done_ev S P s z \<longrightarrow> done_ev S P s y" using hbm_edge_done[OF ei] by blast
        then show ?case using step gr unfolding hbm_def by (auto simp: swm_def intro: trancl_into_trancl)
      qed
      then show ?thesis using d by blast
    qed
    then show ?thesis using hbm_keep[OF ei gr _ d] by blast
  qed
  moreover have "ob P g' b = ob P g b" if "b = c \<or> (b, c) \<in> hbm L P g" for b
  proof -
    have "done_ev S P s b" using that hbm_done[OF ei _ d] d by blast
    then show ?thesis using gr by (simp add: ob_def)
  qed
  ultimately show ?thesis unfolding knows_at_def[abs_def] by (intro ext) metis
qed

lemma knows_at_knows: "done_ev S P s c \<Longrightarrow> sthread c = Some t \<Longrightarrow> knows_at L P g c a \<Longrightarrow> knows L S P s g t a"
  unfolding knows_at_def knows_def by blast

lemma knows_at_wx: "ev_inv S P s g \<Longrightarrow> done_ev S P s c \<Longrightarrow> knows_at L P g c a \<Longrightarrow> sloc P a = Some y \<Longrightarrow> wx S P s y a"
proof -
  assume ei: "ev_inv S P s g" and d: "done_ev S P s c" and k: "knows_at L P g c a" and y: "sloc P a = Some y"
  obtain b where b: "is_wr P b \<or> is_rd P b" "b = c \<or> (b, c) \<in> hbm L P g" "ob P g b = a"
    using k unfolding knows_at_def by blast
  have db: "done_ev S P s b" using b(2) hbm_done[OF ei _ d] d by blast
  show ?thesis
  proof (cases "is_rd P b")
    case True
    then show ?thesis using ev_parts(2)[OF ei] db b(3) y by (auto simp: ob_def wx_def)
  next
    case False
    then show ?thesis using b db y by (auto simp: ob_def wx_def)
  qed
qed

text \<open>What a remote store knew, other than itself, is performed.\<close>
lemma knows_at_done:
  assumes ei: "ev_inv S P s g" and d: "done_ev S P s c" and k: "knows_at L P g c a"
  shows "done_ev S P s a \<and> (\<exists>y. wx S P s y a)"
proof -
  obtain b where b: "is_wr P b \<or> is_rd P b" "b = c \<or> (b, c) \<in> hbm L P g" "ob P g b = a"
    using k unfolding knows_at_def by blast
  have db: "done_ev S P s b" using b(2) hbm_done[OF ei _ d] d by blast
  obtain y where y: "sloc P b = Some y" using b(1) wr_loc[of P b] rd_addr by (cases b) (auto simp: acc_def)
  have "wx S P s y a" using ob_wx_done[OF ei b(1) db y] b(3) by simp
  then show ?thesis using wx_done by blast
qed


text \<open>Position n of a code comes after a visible instruction, with only
  quiet instructions between, up to the first flush of the L1 after it, or
  right after that flush while F holds.\<close>
definition rwin :: "instr list \<Rightarrow> nat \<Rightarrow> bool \<Rightarrow> bool" where
  "rwin xs n F \<longleftrightarrow> (\<exists>j < n. j < length xs \<and> visible (xs ! j) \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m))
     \<and> ((\<forall>m. j < m \<and> m < n \<longrightarrow> \<not> flul1 (xs ! m))
        \<or> (j < n - 1 \<and> flul1 (xs ! (n - 1)) \<and> (\<forall>m. j < m \<and> m < n - 1 \<longrightarrow> \<not> flul1 (xs ! m)) \<and> F)))"

lemma rwin_mono: "rwin xs n F \<Longrightarrow> (F \<Longrightarrow> G) \<Longrightarrow> rwin xs n G"
  unfolding rwin_def by blast

text \<open>A flushed position is in no such window but while F holds.\<close>
lemma flushed_no_rwin: "flushed xs n \<Longrightarrow> rwin xs n F \<Longrightarrow> F"
proof -
  assume fl: "flushed xs n" and rw: "rwin xs n F"
  obtain j' sc where f: "j' < n" "xs ! j' = FLUL1 sc" "\<forall>m. j' < m \<and> m < n \<longrightarrow> quiet (xs ! m)"
    using fl unfolding flushed_def by blast
  obtain j where j: "j < n" "visible (xs ! j)" "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m)"
      "(\<forall>m. j < m \<and> m < n \<longrightarrow> \<not> flul1 (xs ! m)) \<or> F"
    using rw unfolding rwin_def by blast
  show F
  proof (rule ccontr)
    assume nF: "\<not> F"
    then have nf: "\<forall>m. j < m \<and> m < n \<longrightarrow> \<not> flul1 (xs ! m)" using j(4) by blast
    consider "j' < j" | "j' = j" | "j < j'" by linarith
    then show False
    proof cases
      case 1
      then show False using f(3) j(1,2) visible_quiet by blast
    next
      case 2
      then show False using f(2) j(2) by simp
    next
      case 3
      then show False using nf f(1,2) by fastforce
    qed
  qed
qed

text \<open>What a remote acquire (a remote load or a remote RMW) learns may wait in
  the L1 of another work-group from its access until its flush of the
  device's L1s has passed that work-group ([RSP15] sec. 5.1: a remote
  acquire reads a work-group-scope release): the thread's last access is
  a remote acquire of a location that another work-group writes, and the
  thread has not passed the first flush after it, or its marker still
  waits in the fifo of the work-group of the write.\<close>
definition rexempt :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> sev \<Rightarrow> sev \<Rightarrow> bool" where
  "rexempt L S P s c a \<longleftrightarrow> (\<exists>t k p. c = Acc t k p \<and> Suc k = kd S P s t \<and> racq_ev P c \<and> fw L P (wg_of L t) (sloc P c)
     \<and> rwin (instrs (compile S P) t) (pc s t) (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s w)))"

text \<open>A thread with no marker in a fifo is in no such window but before
  the flush.\<close>
lemma rexempt_nu:
  assumes re: "rexempt L S P s (Acc t k p) a" and nu: "\<not> unflushed L s t"
    and wa: "\<forall>w. ewg L a = Some w \<longrightarrow> w \<in> wgs L"
  shows "rwin (instrs (compile S P) t) (pc s t) False \<and> Suc k = kd S P s t \<and> racq_ev P (Acc t k p)
    \<and> fw L P (wg_of L t) (sloc P (Acc t k p))"
proof -
  have r: "rwin (instrs (compile S P) t) (pc s t) (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s w))"
    "Suc k = kd S P s t" "racq_ev P (Acc t k p)" "fw L P (wg_of L t) (sloc P (Acc t k p))"
    using re unfolding rexempt_def by auto
  have "\<not> (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s w))" using nu wa by (auto simp: unflushed_def)
  then show ?thesis using r rwin_mono[OF r(1)] by blast
qed

text \<open>A write an access knows that has not reached the L2 is of its thread's
  work-group, but while the access is a remote acquire whose flush is
  pending (rexempt); one a thread knows that has not reached memory, of its
  own device.\<close>
definition kh_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "kh_ok L S P s g \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>x a. wx S P s x a \<and> knows L S P s g t a \<longrightarrow>
       (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t))))
   \<and> (\<forall>t \<in> src_threads P. \<forall>c x a. done_ev S P s c \<and> sthread c = Some t \<and> knows_at L P g c a \<and> wx S P s x a
       \<and> ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L t) \<or> rexempt L S P s c a)"

text \<open>So what an access knows, out of such a window, is at home.\<close>
lemma wx_wgs: "well_placed L P \<Longrightarrow> wx S P s y a \<Longrightarrow> ewg L a = Some w \<Longrightarrow> w \<in> wgs L"
  by (cases a) (auto simp: wx_def acc_def well_placed_def)

lemma kh_at:
  assumes kh: "kh_ok L S P s g" and t: "t \<in> src_threads P"
    and c: "done_ev S P s c" "sthread c = Some t" "knows_at L P g c a" and wa: "wx S P s x a"
    and ne: "\<not> rexempt L S P s c a"
  shows "(ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
  using kh t c wa ne knows_at_knows[OF c] unfolding kh_ok_def by blast

text \<open>And what a thread knows, where none of its accesses is in one.\<close>
lemma kh_home:
  assumes kh: "kh_ok L S P s g" and t: "t \<in> src_threads P" and wa: "wx S P s x a" and ka: "knows L S P s g t a"
    and ne: "\<forall>c. done_ev S P s c \<and> sthread c = Some t \<and> knows_at L P g c a \<longrightarrow> \<not> rexempt L S P s c a"
  shows "(ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
proof -
  have "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t))" using kh t wa ka unfolding kh_ok_def by blast
  moreover have "ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L t)"
  proof
    assume a2: "ga2 g a = None"
    from ka consider (own) "sthread a = Some t" | (at) c where "done_ev S P s c" "sthread c = Some t" "knows_at L P g c a"
      unfolding knows_def knows_at_def by blast
    then show "ewg L a = Some (wg_of L t)"
    proof cases
      case own
      then show ?thesis by (cases a) auto
    next
      case (at c)
      then show ?thesis using kh t wa a2 ne unfolding kh_ok_def by blast
    qed
  qed
  ultimately show ?thesis by blast
qed

text \<open>A write of a location two work-groups access and only atomics at device
  scope or wider write, or of a remote store at such scope, is a release
  that was flushed: every other write observed before it in happens-before
  has reached the L2.\<close>
definition rel_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "rel_ok L S P s g \<longleftrightarrow> (\<forall>w b x. is_wr P w \<and> done_ev S P s w \<and> sloc P w = Some x \<and> (wshared L P x \<or> wide_ev P w \<and> rstore_ev P w)
     \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbm L P g \<and> ob P g b \<noteq> w \<longrightarrow> ga2 g (ob P g b) \<noteq> None)"

text \<open>A location at home in work-group wo: a write of it below device scope
  is of wo, or only wo accesses it.\<close>
definition wg_home :: "layout \<Rightarrow> src_program \<Rightarrow> wid option \<Rightarrow> addr \<Rightarrow> bool" where
  "wg_home L P wo x \<longleftrightarrow> (\<exists>e. is_wr P e \<and> sloc P e = Some x \<and> ewg L e = wo \<and> \<not> wide_ev P e)
     \<or> (\<forall>b. (is_rd P b \<or> is_wr P b) \<and> sloc P b = Some x \<and> ewg L b \<noteq> None \<longrightarrow> ewg L b = wo)"

text \<open>What a remote RMW's write knows that has not reached the L2 waits in a
  work-group where the RMW's location is at home ([RSP15] sec. 5.1: a
  remote RMW may read a work-group-scope release of another work-group;
  what that release knew may wait in its work-group's L1 while the RMW's
  write is in the L2).\<close>
definition rk_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "rk_ok L S P s g \<longleftrightarrow> (\<forall>w b x. racq_ev P w \<and> is_wr P w \<and> done_ev S P s w \<and> sloc P w = Some x
     \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbm L P g \<and> ob P g b \<noteq> w \<and> ga2 g (ob P g b) = None
     \<longrightarrow> wg_home L P (ewg L (ob P g b)) x)"

definition hb_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "hb_ok L S P s g \<longleftrightarrow> kh_ok L S P s g \<and> rel_ok L S P s g \<and> rk_ok L S P s g"

text \<open>The location of a write that is not a remote acquire's, nor a remote
  store's at device scope or wider, is at home in the writer's work-group
  where the write is below device scope, or where writes at device scope
  or wider are not all its writes.\<close>
lemma writer_home:
  assumes sc: "scoped_conflicts L P" and y: "is_wr P y" "sloc P y = Some x" "ewg L y = Some w" "\<not> racq_ev P y"
    and ns: "\<not> wide_ev P y \<or> \<not> wshared L P x" and nrs: "\<not> (wide_ev P y \<and> rstore_ev P y)"
  shows "wg_home L P (Some w) x"
proof (cases "wide_ev P y")
  case False
  then show ?thesis unfolding wg_home_def using y by blast
next
  case True
  then have nw: "\<not> wshared L P x" using ns by blast
  show ?thesis
  proof (cases "shared L P x")
    case False
    have "ewg L b = Some w" if b: "(is_rd P b \<or> is_wr P b) \<and> sloc P b = Some x \<and> ewg L b \<noteq> None" for b
    proof (rule ccontr)
      assume "ewg L b \<noteq> Some w"
      then have "shared L P x" unfolding shared_def using b y by (intro exI[of _ y] exI[of _ b]) auto
      then show False using False by blast
    qed
    then show ?thesis unfolding wg_home_def by blast
  next
    case sh: True
    obtain e where e: "is_wr P e" "sloc P e = Some x" "ewg L e \<noteq> None" "\<not> wide_ev P e"
      using nw sh unfolding wshared_def by blast
    have "ewg L e = Some w"
    proof (rule ccontr)
      assume ne: "ewg L e \<noteq> Some w"
      have "racq_ev P y \<or> rstore_ev P y" using sc_narrow[OF sc e(1,4), of y] y e ne by auto
      then show False using y(4) nrs True by blast
    qed
    then show ?thesis unfolding wg_home_def using e by blast
  qed
qed

text \<open>An access of such a location from another work-group that is not a
  remote store is a remote acquire, and another work-group writes the
  location, not by a remote store.\<close>
lemma home_reader:
  assumes sc: "scoped_conflicts L P" and h: "wg_home L P wo x" and wo: "wo \<noteq> None"
    and r: "is_rd P r \<or> is_wr P r" "sloc P r = Some x" "ewg L r = Some w" "Some w \<noteq> wo" "\<not> rstore_ev P r"
  shows "racq_ev P r \<and> fw L P w (Some x)"
proof -
  obtain e where e: "is_wr P e" "sloc P e = Some x" "ewg L e = wo" "\<not> wide_ev P e"
    using h r unfolding wg_home_def by force
  have "racq_ev P r \<and> atomic_ev P e \<and> \<not> remote_ev P e" using sc_narrow[OF sc e(1,4) r(1)] e r wo by auto
  moreover have "\<not> rstore_ev P e" using calculation by (cases e) (auto simp: rstore_ev_def remote_ev_def)
  ultimately show ?thesis unfolding fw_def using e r wo by (intro conjI exI[of _ e]) auto
qed

lemma hb_ok_initial: "hb_ok L S P (initial (src_init P)) (ghost0 P)"
proof -
  have nd: "\<not> done_ev S P (initial (src_init P)) (Acc t k p)" for t k p by simp
  have nk: "a = Init x" if "wx S P (initial (src_init P)) x a" for x a
    using that by (simp add: wx_initial)
  have kh: "kh_ok L S P (initial (src_init P)) (ghost0 P)"
    unfolding kh_ok_def
  proof (intro conjI ballI allI impI)
    fix t x a assume h: "wx S P (initial (src_init P)) x a \<and> knows L S P (initial (src_init P)) (ghost0 P) t a"
      "ga3 (ghost0 P) a = None"
    have "a = Init x" using nk h(1) by blast
    then show "dv L a = Some (dev_of L (wg_of L t))" using h(2) by (simp add: ghost0_def)
  next
    fix t c x a assume "done_ev S P (initial (src_init P)) c \<and> sthread c = Some t
      \<and> knows_at L P (ghost0 P) c a \<and> wx S P (initial (src_init P)) x a \<and> ga2 (ghost0 P) a = None"
    then have "a = Init x" "ga2 (ghost0 P) a = None" using nk by blast+
    then show "ewg L a = Some (wg_of L t) \<or> rexempt L S P (initial (src_init P)) c a"
      by (simp add: ghost0_def)
  qed
  have "(b, w) \<notin> hbm L P (ghost0 P)" if "done_ev S P (initial (src_init P)) w" for b w
  proof
    assume "(b, w) \<in> hbm L P (ghost0 P)"
    then obtain c where "(c, w) \<in> src_po P \<union> swm L P (ghost0 P)" unfolding hbm_def by (auto elim: tranclE)
    then show False using that nd by (cases w) (auto simp: src_po_def swm_def)
  qed
  then show ?thesis using kh by (auto simp: hb_ok_def rel_ok_def rk_ok_def)
qed

section \<open>Environment steps keep them\<close>

text \<open>A thread's marker leaves a fifo only at its head, so past every write
  of that work-group the thread knows (Hrf_Coherence's fifo_ok).\<close>
lemma hb_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and hb: "hb_ok L S P s g"
    and oi: "oinv L S P s g" and fe: "fifo_env L S P s s' g g'"
  shows "hb_ok L S P s' g'"
proof -
  have gr: "grf g' = grf g" and m2: "\<forall>e. ga2 g e \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None"
    and m3: "\<forall>e. ga3 g e \<noteq> None \<longrightarrow> ga3 g' e \<noteq> None"
    using m by (simp_all add: env_mono_def)
  have k: "knows L S P s' g' = knows L S P s g" using knows_same[OF pc gr] .
  have h: "hbm L P g' = hbm L P g" unfolding hbm_def swm_def gr ..
  have o: "ob P g' = ob P g" unfolding ob_def[abs_def] gr ..
  have ka: "knows_at L P g' = knows_at L P g" unfolding knows_at_def[abs_def] h o ..
  have kh: "kh_ok L S P s g" using hb by (simp add: hb_ok_def)
  have fo: "fifo_ok L S P s g" using oi by (simp add: oinv_def)
  have kd: "kd S P s' = kd S P s" by (rule ext) (simp add: kd_def pc)
  \<comment> \<open>a window whose marker left the fifo of the write's work-group: the write has reached the L2\<close>
  have drop: "ga2 g a \<noteq> None \<or> (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s' w))"
    if w: "ewg L a = Some w" "Flush t \<in> set (l1_fifo s w)" and kt: "knows L S P s g t a" and wa: "wx S P s x a" for t a w x
  proof (cases "Flush t \<in> set (l1_fifo s' w)")
    case True
    then show ?thesis using w(1) by blast
  next
    case False
    obtain e0 where e0: "l1_fifo s w = e0 # l1_fifo s' w"
    proof -
      have "l1_fifo s' w \<noteq> l1_fifo s w" using False w(2) by auto
      then show ?thesis using fe that unfolding fifo_env_def by blast
    qed
    have hd: "l1_fifo s w ! 0 = Flush t" using e0 w(2) False by simp
    have "ga2 g a \<noteq> None"
    proof
      assume a2: "ga2 g a = None"
      then have "a \<in> pend1 L S P s g w x" using wa w(1) by (simp add: pend1_def)
      then obtain i where i: "i < length (l1_fifo s w)" "l1_fifo s w ! i = Addr x"
          "\<forall>j < i. \<forall>u. knows L S P s g u a \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u"
        using fo unfolding fifo_ok_def by blast
      show False
      proof (cases i)
        case 0
        then show False using i(2) hd by simp
      next
        case (Suc i')
        then show False using i(3) kt hd by blast
      qed
    qed
    then show ?thesis by blast
  qed
  have "kh_ok L S P s' g'"
    unfolding kh_ok_def
  proof (intro conjI ballI allI impI)
    fix t x a assume a: "wx S P s' x a \<and> knows L S P s' g' t a" "ga3 g' a = None" and t: "t \<in> src_threads P"
    then show "dv L a = Some (dev_of L (wg_of L t))" using kh m3 unfolding kh_ok_def k wx_same[OF pc] by blast
  next
    fix t c x a assume t: "t \<in> src_threads P" and a: "done_ev S P s' c \<and> sthread c = Some t
      \<and> knows_at L P g' c a \<and> wx S P s' x a \<and> ga2 g' a = None"
    have dc: "done_ev S P s c" using a done_same[OF pc] by simp
    have wa: "wx S P s x a" using a wx_same[OF pc] by simp
    have kc: "knows_at L P g c a" using a ka by simp
    have a2: "ga2 g a = None" using a m2 by blast
    have "ewg L a = Some (wg_of L t) \<or> rexempt L S P s c a" using kh t dc a kc wa a2 unfolding kh_ok_def by blast
    then show "ewg L a = Some (wg_of L t) \<or> rexempt L S P s' c a"
    proof
      assume "ewg L a = Some (wg_of L t)"
      then show ?thesis by blast
    next
      assume re: "rexempt L S P s c a"
      then obtain k p where ck: "c = Acc t k p" "Suc k = kd S P s t" "racq_ev P c" "fw L P (wg_of L t) (sloc P c)"
          "rwin (instrs (compile S P) t) (pc s t) (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s w))"
        using a unfolding rexempt_def by auto
      have kt: "knows L S P s g t a" using knows_at_knows[OF dc _ kc] a by blast
      have G: "\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s' w)"
        if "\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s w)"
        using that drop[OF _ _ kt wa] a2 by blast
      have "rwin (instrs (compile S P) t) (pc s' t) (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s' w))"
        using rwin_mono[OF ck(5) G] pc by simp
      then show ?thesis unfolding rexempt_def using ck kd by auto
    qed
  qed
  moreover have "rel_ok L S P s' g'"
    using hb m2 unfolding hb_ok_def rel_ok_def h o done_same[OF pc] by blast
  moreover have "rk_ok L S P s' g'"
    using hb m2 unfolding hb_ok_def rk_ok_def h o done_same[OF pc] by blast
  ultimately show ?thesis by (simp add: hb_ok_def)
qed

section \<open>Thread steps keep them\<close>

text \<open>An access that knows something is one.\<close>
lemma knows_at_acc: "knows_at L P g c a \<Longrightarrow> is_wr P c \<or> is_rd P c"
proof -
  assume "knows_at L P g c a"
  then obtain b where b: "is_wr P b \<or> is_rd P b" "b = c \<or> (b, c) \<in> hbm L P g" unfolding knows_at_def by blast
  show ?thesis
  proof (cases "b = c")
    case True
    then show ?thesis using b(1) by simp
  next
    case False
    then obtain d where "(d, c) \<in> src_po P \<union> swm L P g" using b(2) unfolding hbm_def by (auto elim: tranclE)
    then show ?thesis by (cases c) (auto simp: src_po_def swm_def acc_def)
  qed
qed

text \<open>A remote acquire's window in its thread's code: its access at j, the
  first flush of the L1 after it at f (rl_rows), the position between.\<close>
lemma rwin_code:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and rl: "rl_rows S A B"
    and t: "t \<in> src_threads P" and k: "Suc k = kd S P s t" "racq_ev P (Acc t k p)"
    and r: "rwin (instrs (compile S P) t) (pc s t) F"
  obtains j f a0 r0 x0 where "j < pc s t" "j < length (instrs (compile S P) t)"
    "visible (instrs (compile S P) t ! j)" "\<forall>m. j < m \<and> m < pc s t \<longrightarrow> quiet (instrs (compile S P) t ! m)"
    "(\<forall>m. j < m \<and> m < pc s t \<longrightarrow> \<not> flul1 (instrs (compile S P) t ! m))
     \<or> (j < pc s t - 1 \<and> flul1 (instrs (compile S P) t ! (pc s t - 1))
        \<and> (\<forall>m. j < m \<and> m < pc s t - 1 \<longrightarrow> \<not> flul1 (instrs (compile S P) t ! m)) \<and> F)"
    "length (filter visible (take j (instrs (compile S P) t))) = k"
    "src_code P t ! k = Op a0 r0 x0" "racq_op a0"
    "j < f" "f < length (instrs (compile S P) t)" "\<exists>sc'. instrs (compile S P) t ! f = FLUL1 sc' \<and> sc' \<noteq> WG"
    "\<forall>m. j < m \<and> m < f \<longrightarrow> quiet (instrs (compile S P) t ! m) \<and> \<not> flul1 (instrs (compile S P) t ! m)
       \<and> (\<forall>sc'. instrs (compile S P) t ! m \<noteq> INVL1 sc')"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t"
  obtain j where j: "j < ?n" "j < length ?xs" "visible (?xs ! j)" "\<forall>m. j < m \<and> m < ?n \<longrightarrow> quiet (?xs ! m)"
      "(\<forall>m. j < m \<and> m < ?n \<longrightarrow> \<not> flul1 (?xs ! m))
       \<or> (j < ?n - 1 \<and> flul1 (?xs ! (?n - 1)) \<and> (\<forall>m. j < m \<and> m < ?n - 1 \<longrightarrow> \<not> flul1 (?xs ! m)) \<and> F)"
    using r unfolding rwin_def by blast
  have cnt: "length (filter visible (take j ?xs)) = k" using vis_count[OF j(1,2,3,4)] k(1) by (simp add: kd_def)
  obtain a0 r0 x0 where op: "src_code P t ! k = Op a0 r0 x0" "racq_op a0"
    using racq_ev_op[OF k(2)] by (auto simp: ins_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
  have xsc: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  have "\<exists>f. j < f \<and> f < length (concat (map (compile_instr S) (src_code P t)))
    \<and> (\<exists>sc'. concat (map (compile_instr S) (src_code P t)) ! f = FLUL1 sc' \<and> sc' \<noteq> WG)
    \<and> (\<forall>m. j < m \<and> m < f \<longrightarrow> quiet (concat (map (compile_instr S) (src_code P t)) ! m)
        \<and> \<not> flul1 (concat (map (compile_instr S) (src_code P t)) ! m)
        \<and> (\<forall>sc'. concat (map (compile_instr S) (src_code P t)) ! m \<noteq> INVL1 sc'))"
    by (rule compiled_rl[OF rows(1,2) rl ops _ _ _ op]) (use j(2,3) cnt xsc in simp_all)
  then obtain f where f: "j < f" "f < length ?xs" "\<exists>sc'. ?xs ! f = FLUL1 sc' \<and> sc' \<noteq> WG"
      "\<forall>m. j < m \<and> m < f \<longrightarrow> quiet (?xs ! m) \<and> \<not> flul1 (?xs ! m) \<and> (\<forall>sc'. ?xs ! m \<noteq> INVL1 sc')"
    unfolding xsc[symmetric] by blast
  show ?thesis by (rule that[OF j(1-5) cnt op f])
qed

text \<open>In a remote acquire's window its thread steps only quiet instructions
  and stays in it, for a write of its device (rl_rows): up to its flush,
  which puts its marker on the fifo of every work-group of the device.\<close>
lemma rexempt_step:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and rl: "rl_rows S A B" and t: "t \<in> src_threads P"
    and re: "rexempt L S P s (Acc t k p) a"
    and wa: "\<forall>w. ewg L a = Some w \<longrightarrow> w \<in> wgs L \<and> dev_of L w = dev_of L (wg_of L t)" and ea: "ewg L a \<noteq> None"
  shows "quiet (instrs (compile S P) t ! pc s t) \<and> rexempt L S P s' (Acc t k p) a"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t"
  obtain z where z: "?n < length ?xs" "exec L t (?xs ! ?n) s = Some z" "\<not> unflushed L s t"
      "visible (?xs ! ?n) \<or> quiet (?xs ! ?n)" "s' = set_pc t (Suc ?n) z" "pc z = pc s"
      "kd S P s' t = (if visible (?xs ! ?n) then Suc (kd S P s t) else kd S P s t)"
    by (rule step_shape[OF st rows(1-3)]) blast
  have r: "rwin ?xs ?n False" "Suc k = kd S P s t" "racq_ev P (Acc t k p)"
      "fw L P (wg_of L t) (sloc P (Acc t k p))"
    using rexempt_nu[OF re z(3)] wa by blast+
  obtain j f a0 r0 x0 where j0: "j < ?n" "j < length ?xs" "visible (?xs ! j)" "\<forall>m. j < m \<and> m < ?n \<longrightarrow> quiet (?xs ! m)"
      "(\<forall>m. j < m \<and> m < ?n \<longrightarrow> \<not> flul1 (?xs ! m))
       \<or> (j < ?n - 1 \<and> flul1 (?xs ! (?n - 1)) \<and> (\<forall>m. j < m \<and> m < ?n - 1 \<longrightarrow> \<not> flul1 (?xs ! m)) \<and> False)"
      and "length (filter visible (take j ?xs)) = k"
      and "src_code P t ! k = Op a0 r0 x0" "racq_op a0"
      and f: "j < f" "f < length ?xs" "\<exists>sc'. ?xs ! f = FLUL1 sc' \<and> sc' \<noteq> WG"
      "\<forall>m. j < m \<and> m < f \<longrightarrow> quiet (?xs ! m) \<and> \<not> flul1 (?xs ! m) \<and> (\<forall>sc'. ?xs ! m \<noteq> INVL1 sc')"
    by (rule rwin_code[OF rows rl t r(2,3,1)])
  have j: "j < ?n" "j < length ?xs" "visible (?xs ! j)" "\<forall>m. j < m \<and> m < ?n \<longrightarrow> quiet (?xs ! m)"
      "\<forall>m. j < m \<and> m < ?n \<longrightarrow> \<not> flul1 (?xs ! m)"
    using j0 by blast+
  have nf: "?n \<le> f"
  proof (rule ccontr)
    assume "\<not> ?n \<le> f"
    then have "\<not> flul1 (?xs ! f)" using j(5) f(1) by simp
    then show False using f(3) by auto
  qed
  have q: "quiet (?xs ! ?n)"
  proof (cases "?n = f")
    case True
    then show ?thesis using f(3) by auto
  next
    case False
    then show ?thesis using f(4) j(1) nf by simp
  qed
  have kd': "kd S P s' t = kd S P s t" using z(7) q quiet_vis by simp
  have pc': "pc s' t = Suc ?n" using z(5,6) by (simp add: set_pc_def)
  have fq: "l1_fifo s' = l1_fifo z" using z(5) by (simp add: set_pc_def)
  have w': "rwin ?xs (Suc ?n) (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s' w))"
  proof (cases "?n = f")
    case False
    then have "\<not> flul1 (?xs ! ?n)" using f(4) j(1) nf by simp
    then have "\<forall>m. j < m \<and> m < Suc ?n \<longrightarrow> quiet (?xs ! m) \<and> \<not> flul1 (?xs ! m)"
      using j(4,5) q less_Suc_eq by auto
    then show ?thesis unfolding rwin_def using j(1,2,3) by (intro exI[of _ j]) auto
  next
    case True
    obtain sc' where sc': "?xs ! ?n = FLUL1 sc'" "sc' \<noteq> WG" using f(3) True by blast
    obtain w where w: "ewg L a = Some w" using ea by blast
    have wd: "w \<in> wgs L" "dev_of L w = dev_of L (wg_of L t)" using wa w by blast+
    have "w \<in> wgs_in L sc' (wg_of L t)" using wd sc'(2) by (cases sc') (auto simp: wgs_in_def)
    then have fw': "Flush t \<in> set (l1_fifo s' w)" using exec_fifo[OF z(2)] sc'(1) fq by simp
    have "\<forall>m. j < m \<and> m < Suc ?n \<longrightarrow> quiet (?xs ! m)" using j(4) q less_Suc_eq by auto
    moreover have "flul1 (?xs ! (Suc ?n - 1))" using sc'(1) by simp
    ultimately show ?thesis unfolding rwin_def using j(1,2,3,5) w fw' by (intro exI[of _ j]) auto
  qed
  have "rexempt L S P s' (Acc t k p) a"
    unfolding rexempt_def using r(2-4) kd' pc' w' by auto
  then show ?thesis using q by blast
qed

text \<open>Another thread's step keeps a window: it adds at most markers and
  addresses at the ends of the fifos.\<close>
lemma rexempt_other:
  assumes st: "step_thread L (compile S P) t s = Some s'" and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and ut: "u \<noteq> t" and re: "rexempt L S P s (Acc u k p) a"
  shows "rexempt L S P s' (Acc u k p) a"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t"
  obtain z where z: "exec L t (?xs ! ?n) s = Some z" "s' = set_pc t (Suc ?n) z" "pc z = pc s"
      "\<forall>v. v \<noteq> t \<longrightarrow> kd S P s' v = kd S P s v"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' u = pc s u" using z(2,3) ut by (simp add: set_pc_def)
  have fq: "l1_fifo s' = l1_fifo z" using z(2) by (simp add: set_pc_def)
  have grow: "set (l1_fifo s w) \<subseteq> set (l1_fifo s' w)" for w
    using exec_fifo[OF z(1)] fq by (cases "?xs ! ?n") auto
  have G: "\<exists>w. ewg L a = Some w \<and> Flush u \<in> set (l1_fifo s' w)"
    if "\<exists>w. ewg L a = Some w \<and> Flush u \<in> set (l1_fifo s w)" using that grow by blast
  have r: "Suc k = kd S P s u" "racq_ev P (Acc u k p)" "fw L P (wg_of L u) (sloc P (Acc u k p))"
      "rwin (instrs (compile S P) u) (pc s u) (\<exists>w. ewg L a = Some w \<and> Flush u \<in> set (l1_fifo s w))"
    using re unfolding rexempt_def by auto
  then show ?thesis unfolding rexempt_def using rwin_mono[OF r(4) G] z(4) ut pc' by auto
qed


text \<open>Happens-before into an event the step performs comes from an event
  the step performs, or from one performed before that reaches, in the
  happens-before before the step, an event of the stepping thread or the
  write the step's read synchronises with.\<close>
lemma hbm_into_new:
  assumes ei: "ev_inv S P s g" and ei': "ev_inv S P s' g'" and gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r"
    and h: "(b, c) \<in> hbm L P g'" and dc: "done_ev S P s' c" and nc: "\<not> done_ev S P s c"
    and po_new: "\<And>y c. (y, c) \<in> src_po P \<Longrightarrow> \<not> done_ev S P s c \<Longrightarrow> done_ev S P s' c \<Longrightarrow> sthread y = Some t"
  shows "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
     \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
proof -
  define C where "C \<longleftrightarrow> \<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
     \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
  have old: "(y, c) \<in> src_po P \<union> swm L P g \<and> done_ev S P s y"
    if "(y, c) \<in> src_po P \<union> swm L P g'" "done_ev S P s c" for y c
  proof -
    have "(y, c) \<in> src_po P \<union> swm L P g" using that gr by (auto simp: swm_def)
    then show ?thesis using hbm_edge_done[OF ei] that(2) by blast
  qed
  have entry: "sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)"
    if "(y, c) \<in> src_po P \<union> swm L P g'" "\<not> done_ev S P s c" "done_ev S P s' c" for y c
    using that po_new by blast
  have "done_ev S P s' c \<longrightarrow> (done_ev S P s c \<longrightarrow> (b, c) \<in> hbm L P g \<and> done_ev S P s b) \<and> (\<not> done_ev S P s c \<longrightarrow> C)"
    using h[unfolded hbm_def]
  proof (induction rule: trancl_induct)
    case (base c)
    show ?case
    proof (intro impI)
      assume dc': "done_ev S P s' c"
      have "done_ev S P s c \<longrightarrow> (b, c) \<in> hbm L P g \<and> done_ev S P s b"
        using old[OF base] unfolding hbm_def by blast
      moreover have "\<not> done_ev S P s c \<longrightarrow> C"
      proof
        assume nc': "\<not> done_ev S P s c"
        show C
        proof (cases "done_ev S P s b")
          case True
          then show ?thesis using entry[OF base nc' dc'] unfolding C_def by blast
        qed (simp add: C_def)
      qed
      ultimately show "(done_ev S P s c \<longrightarrow> (b, c) \<in> hbm L P g \<and> done_ev S P s b) \<and> (\<not> done_ev S P s c \<longrightarrow> C)"
        by blast
    qed
  next
    case (step y c)
    show ?case
    proof (intro impI)
      assume dc': "done_ev S P s' c"
      have dy': "done_ev S P s' y" using hbm_edge_done[OF ei' step(2) dc'] .
      have "done_ev S P s c \<longrightarrow> (b, c) \<in> hbm L P g \<and> done_ev S P s b"
      proof
        assume "done_ev S P s c"
        then have "(y, c) \<in> src_po P \<union> swm L P g" "done_ev S P s y" using old[OF step(2)] by blast+
        then show "(b, c) \<in> hbm L P g \<and> done_ev S P s b" using step(3) dy' unfolding hbm_def
          by (meson trancl_into_trancl)
      qed
      moreover have "\<not> done_ev S P s c \<longrightarrow> C"
      proof
        assume nc': "\<not> done_ev S P s c"
        show C
        proof (cases "done_ev S P s y")
          case True
          then have "(b, y) \<in> hbm L P g" "done_ev S P s b" using step(3) dy' by blast+
          then show ?thesis using entry[OF step(2) nc' dc'] True unfolding C_def by blast
        next
          case False
          then show ?thesis using step(3) dy' by blast
        qed
      qed
      ultimately show "(done_ev S P s c \<longrightarrow> (b, c) \<in> hbm L P g \<and> done_ev S P s b) \<and> (\<not> done_ev S P s c \<longrightarrow> C)"
        by blast
    qed
  qed
  then show ?thesis using dc nc unfolding C_def by blast
qed

text \<open>What the stepping thread knows after its step: what it knew, its own
  writes, the write its read reads from, and, where that read
  synchronises with it, what that write's thread knew at it.\<close>
lemma knows_step:
  assumes ei: "ev_inv S P s g" and ei': "ev_inv S P s' g'" and gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r"
    and new: "\<And>e. done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e \<Longrightarrow> sthread e = Some t"
    and kn: "knows L S P s' g' t a"
  shows "knows L S P s g t a \<or> sthread a = Some t
    \<or> (\<exists>r. is_rd P r \<and> done_ev S P s' r \<and> \<not> done_ev S P s r \<and> (a = grf g' r
         \<or> (\<exists>b. (is_wr P b \<or> is_rd P b) \<and> (b, grf g' r) \<in> hbm L P g \<and> ob P g b = a \<and> (grf g' r, r) \<in> swm L P g')))"
proof (cases "sthread a = Some t")
  case False
  then obtain b c where bc: "is_wr P b \<or> is_rd P b" "done_ev S P s' c" "sthread c = Some t"
      "b = c \<or> (b, c) \<in> hbm L P g'" "ob P g' b = a"
    using kn unfolding knows_def by blast
  have po_new: "sthread y = Some t" if "(y, c') \<in> src_po P" "\<not> done_ev S P s c'" "done_ev S P s' c'" for y c'
    using that new[OF that(3,2)] by (auto simp: src_po_def)
  \<comment> \<open>an access the step performs: its write is t's own, its read reads grf g'\<close>
  have newb: ?thesis if "done_ev S P s' b" "\<not> done_ev S P s b"
  proof (cases "is_rd P b")
    case True
    then show ?thesis using bc(5) that by (auto simp: ob_def)
  next
    case nr: False
    then have "a = b" using bc(5) by (simp add: ob_def)
    then show ?thesis using new[OF that] False by simp
  qed
  show ?thesis
  proof (cases "done_ev S P s c")
    case True
    have h: "b = c \<or> (b, c) \<in> hbm L P g" using bc(4) hbm_keep[OF ei gr _ True] by blast
    have "done_ev S P s b" using h hbm_done[OF ei _ True] True by blast
    then have "ob P g b = a" using bc(5) gr by (auto simp: ob_def split: if_splits)
    then show ?thesis unfolding knows_def using bc(1,3) True h by blast
  next
    case nc: False
    show ?thesis
    proof (cases "b = c")
      case True
      then show ?thesis using newb bc(2) nc by blast
    next
      case False
      then have h: "(b, c) \<in> hbm L P g'" using bc(4) by blast
      have db': "done_ev S P s' b" using hbm_done[OF ei' h bc(2)] .
      have hn: "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
         \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
        by (rule hbm_into_new[OF ei ei' gr h bc(2) nc]) (use po_new in blast)
      then consider "\<not> done_ev S P s b"
        | y where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s b" "done_ev S P s y" "sthread y = Some t"
        | y r where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s b" "done_ev S P s y"
            "(y, r) \<in> swm L P g'" "\<not> done_ev S P s r" "done_ev S P s' r"
        by blast
      then show ?thesis
      proof cases
        case 1
        then show ?thesis using newb db' by blast
      next
        case (2 y)
        have "ob P g b = a" using bc(5) gr 2(2) by (auto simp: ob_def split: if_splits)
        then show ?thesis unfolding knows_def using bc(1) 2 by blast
      next
        case (3 y r)
        have ob: "ob P g b = a" using bc(5) gr 3(2) by (auto simp: ob_def split: if_splits)
        have r: "is_rd P r" "grf g' r = y" using 3(4) by (auto simp: swm_def)
        show ?thesis
        proof (cases "b = y")
          case True
          have "is_wr P y" using ev_parts(2)[OF ei'] r 3(6) by blast
          then have "a = grf g' r" using ob True r(2) by (simp add: ob_wr)
          then show ?thesis using r(1) 3(5,6) by blast
        next
          case False
          then have "(b, grf g' r) \<in> hbm L P g" using 3(1) r(2) by simp
          then show ?thesis using r 3(4-6) bc(1) ob by blast
        qed
      qed
    qed
  qed
qed simp

text \<open>A thread that has flushed its L1 and waited for its marker, with only
  quiet instructions since, knows no write that has not reached the L2:
  those of its work-group have left its L1 (the flush is cumulative), the
  others had reached the L2 when it learnt them.\<close>
lemma known_flushed:
  assumes oi: "oinv L S P s g" and kh: "kh_ok L S P s g" and t: "t \<in> src_threads P" and wp: "well_placed L P"
    and fl: "flushed (instrs (compile S P) t) (pc s t)" and nu: "\<not> unflushed L s t"
    and a: "wx S P s y a" "knows L S P s g t a"
  shows "ga2 g a \<noteq> None"
proof
  assume a2: "ga2 g a = None"
  have ne: "\<forall>c. done_ev S P s c \<and> sthread c = Some t \<and> knows_at L P g c a \<longrightarrow> \<not> rexempt L S P s c a"
  proof (intro allI impI notI)
    fix c assume c: "done_ev S P s c \<and> sthread c = Some t \<and> knows_at L P g c a" and re: "rexempt L S P s c a"
    obtain k p where ck: "c = Acc t k p" using re c unfolding rexempt_def by auto
    have "rwin (instrs (compile S P) t) (pc s t) False"
      using rexempt_nu[OF re[unfolded ck] nu] wx_wgs[OF wp a(1)] by blast
    then show False using flushed_no_rwin[OF fl] by blast
  qed
  have "ewg L a = Some (wg_of L t)" using kh_home[OF kh t a ne] a2 by blast
  then have "a \<in> pend1 L S P s g (wg_of L t) y" using a(1) a2 by (simp add: pend1_def)
  then have "Flush t \<in> set (l1_fifo s (wg_of L t))" using oi t fl a(2) unfolding oinv_def since_ok_def by blast
  moreover have "wg_of L t \<in> wgs L" using wp t by (simp add: well_placed_def)
  ultimately show False using nu by (auto simp: unflushed_def)
qed

text \<open>The read a thread step performs reads a line: a write performed
  before, of the read's location and at home for the thread, at the L2 for
  an increment there.\<close>
lemma step_read_home:
  assumes inv: "ginv L S P s g" and wr: "wr_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and r: "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r"
  shows "done_ev S P s (grf g' r) \<and> wx S P s (the (sloc P r)) (grf g' r)
      \<and> (ga2 g (grf g' r) = None \<longrightarrow> ewg L (grf g' r) = Some (wg_of L t))
      \<and> (ga3 g (grf g' r) = None \<longrightarrow> dv L (grf g' r) = Some (dev_of L (wg_of L t)))
      \<and> ((\<exists>r0 y0. instrs (compile S P) t ! pc s t = INCL2 r0 y0) \<longrightarrow> ga2 g (grf g' r) \<noteq> None)"
proof -
  let ?i = "instrs (compile S P) t ! pc s t" and ?k = "kd S P s t" and ?w0 = "wg_of L t"
  note se = step_events[OF inv t st rows gs gv]
  have li: "lines_inv S P s g" using inv by (simp add: ginv_def)
  have ho: "home_ok L s g" using wr_okD(8)[OF wr] .
  obtain p where "r = Acc t ?k p" using se(1)[OF r(2,3)] by blast
  then have rk: "r = Acc t ?k False" using r(1) by (cases p) (auto dest: rd_part)
  obtain y0 r0 where y0: "sloc P r = Some y0" "((?i = LD r0 y0 \<or> ?i = INCL1 r0 y0) \<and> grf g' r = h1 g ?w0 y0 \<and> readable (l1 s ?w0 y0))
      \<or> (?i = INCL2 r0 y0 \<and> grf g' r = h2 g (dev_of L ?w0) y0 \<and> readable (l2 s (dev_of L ?w0) y0))"
    using se(6) r(1,2) rk by blast
  from y0(2) show ?thesis
  proof
    assume a: "(?i = LD r0 y0 \<or> ?i = INCL1 r0 y0) \<and> grf g' r = h1 g ?w0 y0 \<and> readable (l1 s ?w0 y0)"
    have "ga2 g (grf g' r) = None \<longrightarrow> ewg L (grf g' r) = Some ?w0" using home_okD(1)[OF ho] a by simp
    moreover have "ga3 g (grf g' r) = None \<longrightarrow> dv L (grf g' r) = Some (dev_of L ?w0)"
      using home_okD(2)[OF ho] a by simp
    moreover have "wx S P s y0 (grf g' r)" using h1_wx[OF li] a by simp
    moreover have "\<not> (\<exists>r0 y0. ?i = INCL2 r0 y0)" using a by auto
    ultimately show ?thesis using y0(1) wx_done by auto
  next
    assume a: "?i = INCL2 r0 y0 \<and> grf g' r = h2 g (dev_of L ?w0) y0 \<and> readable (l2 s (dev_of L ?w0) y0)"
    have "ga2 g (grf g' r) \<noteq> None" using home_okD(3)[OF ho] a by simp
    moreover have "ga3 g (grf g' r) = None \<longrightarrow> dv L (grf g' r) = Some (dev_of L ?w0)"
      using home_okD(4)[OF ho] a by simp
    moreover have "wx S P s y0 (grf g' r)" using h2_wx[OF li] a by simp
    ultimately show ?thesis using y0(1) wx_done by auto
  qed
qed

text \<open>A thread step keeps them, for a program whose conflicts across
  work-groups are scoped, compiled by release rows.\<close>
lemma hb_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and wr: "wr_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "rel_rows S A B" and rl: "rl_rows S A B"
    and wp: "well_placed L P" and sc: "scoped_conflicts L P" and gi: "ginv L S P s' g'"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and hb: "hb_ok L S P s g"
    and mem: "\<forall>y a. done_ev S P s y \<and> is_wr P y \<and> sys_ev P y \<and> knows_at L P g y a \<and> a \<noteq> y \<longrightarrow> ga3 g a \<noteq> None"
  shows "hb_ok L S P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t" and ?w0 = "wg_of L t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
  have kh: "kh_ok L S P s g" and ro: "rel_ok L S P s g" and rko: "rk_ok L S P s g" using hb by (simp_all add: hb_ok_def)
  have ho: "home_ok L s g" using wr_okD(8)[OF wr] .
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have g23: "ga2 g' e = ga2 g e" "ga3 g' e = ga3 g e" if "done_ev S P s e" for e using se(4)[OF that] by simp_all
  have new: "(\<exists>p. e = Acc t ?k p) \<and> visible ?i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] .
  have new_t: "sthread e = Some t" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using new[OF that] by auto
  have dn: "\<forall>e. sthread e \<noteq> Some t \<longrightarrow> done_ev S P s' e \<longrightarrow> done_ev S P s e" using new_t by blast
  have nl: "?n < length ?xs" by (rule step_shape[OF st rows(1-3)]) simp
  have nu: "\<not> unflushed L s t" by (rule step_shape[OF st rows(1-3)]) simp
  have ob_done: "done_ev S P s (ob P g b) \<and> (\<exists>y. wx S P s y (ob P g b))"
    if "done_ev S P s b" "is_wr P b \<or> is_rd P b" for b
  proof (cases "is_rd P b")
    case True
    have "is_wr P (grf g b) \<and> done_ev S P s (grf g b) \<and> sloc P (grf g b) = sloc P b"
      using ev_parts(2)[OF ei] True that(1) by blast
    then show ?thesis using True wr_loc[of P "grf g b"] by (auto simp: ob_def wx_def)
  next
    case False
    then show ?thesis using that wr_loc[of P b] by (auto simp: ob_def wx_def)
  qed
  \<comment> \<open>the step's read: its write is at home for t, and at the L2 for an increment there\<close>
  have rd_home: "done_ev S P s (grf g' r) \<and> (ga2 g (grf g' r) = None \<longrightarrow> ewg L (grf g' r) = Some ?w0)
      \<and> (ga3 g (grf g' r) = None \<longrightarrow> dv L (grf g' r) = Some (dev_of L ?w0))
      \<and> ((\<exists>r0 y0. ?i = INCL2 r0 y0) \<longrightarrow> ga2 g (grf g' r) \<noteq> None)"
    if r: "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" for r
    using step_read_home[OF inv wr t st rows(1-3) gs gv r] by blast
  have ti: "time_inv S P s g" using inv by (simp add: ginv_def)
  have c0: "0 < clk g" using wr_okD(1)[OF wr] .
  have vq: "visible ?i \<or> quiet ?i" by (rule step_shape[OF st rows(1-3)]) simp
  have kdt: "kd S P s' t = (if visible ?i then Suc ?k else ?k)" by (rule step_shape[OF st rows(1-3)]) simp
  have pct: "pc s' t = Suc ?n"
  proof (rule step_shape[OF st rows(1-3)])
    fix z assume "s' = set_pc t (Suc (pc s t)) z" "pc z = pc s"
    then show ?thesis by (simp add: set_pc_def)
  qed
  \<comment> \<open>a write not yet in the L2 is not initial\<close>
  have ea: "ewg L a \<noteq> None" if "ga2 g a = None" for a
    using that ti by (cases a) (auto simp: time_inv_def)
  \<comment> \<open>a window of the stepping thread: the step is quiet and keeps it\<close>
  have rstep: "quiet ?i \<and> rexempt L S P s' c a"
    if re: "rexempt L S P s c a" and dc: "done_ev S P s c" "sthread c = Some t" and kc: "knows_at L P g c a"
      and wa: "wx S P s x a" and a2: "ga2 g a = None" for c a x
  proof -
    obtain k p where ck: "c = Acc t k p" using re dc(2) unfolding rexempt_def by auto
    have da: "done_ev S P s a" using wx_done[OF wa] .
    have kt: "knows L S P s g t a" using knows_at_knows[OF dc kc] .
    have a3: "ga3 g a = None" using a2 times_lt[OF ti c0 wa] by blast
    have dva: "dv L a = Some (dev_of L ?w0)" using kh t wa kt a3 unfolding kh_ok_def by blast
    have wa': "\<forall>w. ewg L a = Some w \<longrightarrow> w \<in> wgs L \<and> dev_of L w = dev_of L ?w0"
    proof (intro allI impI)
      fix w assume w: "ewg L a = Some w"
      obtain u' k' p' where au: "a = Acc u' k' p'" using w by (cases a) auto
      have "u' \<in> src_threads P" using done_thread[OF ei] da au by simp
      then have "w \<in> wgs L" using wp w au unfolding well_placed_def by auto
      then show "w \<in> wgs L \<and> dev_of L w = dev_of L ?w0" using w dva by (simp add: dv_def)
    qed
    show ?thesis using rexempt_step[OF st rows(1-3) rl t _ wa' ea[OF a2]] re ck by blast
  qed
  have kh': "kh_ok L S P s' g'"
    unfolding kh_ok_def
  proof (intro conjI ballI allI impI)
    fix u x a assume u: "u \<in> src_threads P" and a: "wx S P s' x a \<and> knows L S P s' g' u a" and a3: "ga3 g' a = None"
    show "dv L a = Some (dev_of L (wg_of L u))"
    proof (cases "done_ev S P s a")
      case nd: False
      have "done_ev S P s' a" using a wx_done by blast
      then obtain p where ak: "a = Acc t ?k p" using new nd by blast
      have "u = t"
      proof (rule ccontr)
        assume "u \<noteq> t"
        then have "knows L S P s g u a" using knows_new[OF ei gr dn _ \<open>u \<noteq> t\<close>] a by blast
        then show False using knows_old[OF ei] nd ak \<open>u \<noteq> t\<close> by fastforce
      qed
      then show ?thesis using ak by (simp add: dv_def)
    next
      case da: True
      have wa: "wx S P s x a" using a da by (auto simp: wx_def)
      have o: "ga3 g a = None" using g23[OF da] a3 by simp
      show ?thesis
      proof (cases "u = t")
        case False
        have "knows L S P s g u a" using knows_new[OF ei gr dn _ False] a by blast
        then show ?thesis using kh u wa o unfolding kh_ok_def by blast
      next
        case ut: True
        have "knows L S P s g t a \<or> sthread a = Some t
          \<or> (\<exists>r. is_rd P r \<and> done_ev S P s' r \<and> \<not> done_ev S P s r \<and> (a = grf g' r
               \<or> (\<exists>b. (is_wr P b \<or> is_rd P b) \<and> (b, grf g' r) \<in> hbm L P g \<and> ob P g b = a \<and> (grf g' r, r) \<in> swm L P g')))"
          by (rule knows_step[OF ei ei' gr]) (use new_t a ut in blast)+
        then consider (old) "knows L S P s g t a" | (own) "sthread a = Some t"
          | (rd) r where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "a = grf g' r"
          | (sy) r b where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "is_wr P b \<or> is_rd P b"
              "(b, grf g' r) \<in> hbm L P g" "ob P g b = a" "(grf g' r, r) \<in> swm L P g'"
          by blast
        then show ?thesis
        proof cases
          case old
          then show ?thesis using kh t wa o ut unfolding kh_ok_def by blast
        next
          case own
          then show ?thesis using ut by (cases a) (auto simp: dv_def)
        next
          case (rd r)
          then show ?thesis using rd_home[OF rd(1-3)] o ut by simp
        next
          case (sy r b)
          let ?y = "grf g' r"
          have rh: "done_ev S P s ?y" using rd_home[OF sy(1-3)] by blast
          have at: "atomic_ev P ?y" using sy(7) by (simp add: swm_def)
          then obtain u' j q where yu: "?y = Acc u' j q" by (cases ?y) (auto simp: atomic_ev_def)
          have u': "u' \<in> src_threads P" using done_thread[OF ei] rh yu by simp
          have ka: "knows L S P s g u' a" unfolding knows_def
            by (rule disjI2, rule exI[of _ b], rule exI[of _ ?y]) (use sy(4-6) rh yu in auto)
          have khu: "dv L a = Some (dev_of L (wg_of L u'))" using kh u' wa ka o unfolding kh_ok_def by blast
          have sw: "ewg L ?y = ewg L r \<or> map_option (dev_of L) (ewg L ?y) = map_option (dev_of L) (ewg L r)
              \<or> (sys_ev P ?y \<and> sys_ev P r)"
            using sy(7) by (auto simp: swm_def)
          obtain p where rk: "r = Acc t ?k p" using new sy(2,3) by blast
          show ?thesis
          proof (cases "dev_of L (wg_of L u') = dev_of L ?w0")
            case True
            then show ?thesis using khu ut by simp
          next
            case False
            \<comment> \<open>across devices, an all-devices release hands over only writes in memory\<close>
            then have sy2: "sys_ev P ?y" using sw rk yu by auto
            have yw: "is_wr P ?y" using ev_parts(2)[OF ei'] sy(1,2) by blast
            have "knows_at L P g ?y a" unfolding knows_at_def using sy(4-6) by blast
            then have "a \<noteq> ?y \<longrightarrow> ga3 g a \<noteq> None" using mem rh yw sy2 by blast
            moreover have "ga3 g ?y \<noteq> None" using rd_home[OF sy(1-3)] False yu by (auto simp: dv_def)
            ultimately show ?thesis using o by blast
          qed
        qed
      qed
    qed
  next
    fix u c x a assume u: "u \<in> src_threads P" and A: "done_ev S P s' c \<and> sthread c = Some u \<and> knows_at L P g' c a
      \<and> wx S P s' x a \<and> ga2 g' a = None"
    show "ewg L a = Some (wg_of L u) \<or> rexempt L S P s' c a"
    proof (cases "done_ev S P s c")
      case dc: True
      have kc: "knows_at L P g c a" using knows_at_keep[OF ei gr dc] A by simp
      have da: "done_ev S P s a" using knows_at_done[OF ei dc kc] by blast
      have wa: "wx S P s x a" using A da by (auto simp: wx_def)
      have a2: "ga2 g a = None" using A g23[OF da] by simp
      have "ewg L a = Some (wg_of L u) \<or> rexempt L S P s c a" using kh u dc A kc wa a2 unfolding kh_ok_def by blast
      then show ?thesis
      proof
        assume "ewg L a = Some (wg_of L u)"
        then show ?thesis by blast
      next
        assume re: "rexempt L S P s c a"
        obtain k p where ck: "c = Acc u k p" using re A unfolding rexempt_def by auto
        show ?thesis
        proof (cases "u = t")
          case False
          then show ?thesis using rexempt_other[OF st rows(1-3) False] re ck by blast
        next
          case True
          then show ?thesis using rstep[OF re dc _ kc wa a2] A by blast
        qed
      qed
    next
      case nc: False
      obtain p where cp: "c = Acc t ?k p" and vi: "visible ?i" using new A nc by blast
      have ut: "u = t" using A cp by simp
      have da: "done_ev S P s' a" using A wx_done by blast
      have kn': "knows L S P s' g' t a" using knows_at_knows A ut by blast
      \<comment> \<open>what an access of t performed before knows is at home: t's step is visible\<close>
      have oldc: "ewg L a = Some ?w0" if c0: "done_ev S P s c0" "sthread c0 = Some t" "knows_at L P g c0 a" for c0
      proof -
        have da0: "done_ev S P s a" using knows_at_done[OF ei c0(1,3)] by blast
        have wa: "wx S P s x a" using A da0 by (auto simp: wx_def)
        have a2: "ga2 g a = None" using A g23[OF da0] by simp
        have "ewg L a = Some ?w0 \<or> rexempt L S P s c0 a" using kh t c0 wa a2 unfolding kh_ok_def by blast
        then show ?thesis using rstep[OF _ c0 wa a2] vi visible_quiet by blast
      qed
      from knows_step[OF ei ei' gr new_t kn'] consider
          (old) "knows L S P s g t a" | (own) "sthread a = Some t"
        | (rd) r where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "a = grf g' r"
        | (sy) r b where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "is_wr P b \<or> is_rd P b"
            "(b, grf g' r) \<in> hbm L P g" "ob P g b = a" "(grf g' r, r) \<in> swm L P g'"
        by blast
      then show ?thesis
      proof cases
        case old
        then consider "sthread a = Some t" | b c0 where "is_wr P b \<or> is_rd P b" "done_ev S P s c0"
            "sthread c0 = Some t" "b = c0 \<or> (b, c0) \<in> hbm L P g" "ob P g b = a"
          unfolding knows_def by blast
        then show ?thesis
        proof cases
          case 1
          then show ?thesis using ut by (cases a) auto
        next
          case (2 b c0)
          then have "knows_at L P g c0 a" unfolding knows_at_def by blast
          then show ?thesis using oldc 2 ut by blast
        qed
      next
        case own
        then show ?thesis using ut by (cases a) auto
      next
        case (rd r)
        have "done_ev S P s a" using rd_home[OF rd(1-3)] rd(4) by blast
        then have "ga2 g a = None" using A g23 by simp
        then show ?thesis using rd_home[OF rd(1-3)] rd(4) ut by simp
      next
        case (sy r b)
        let ?y = "grf g' r"
        have rh: "done_ev S P s ?y" "ga2 g ?y = None \<longrightarrow> ewg L ?y = Some ?w0"
          using rd_home[OF sy(1-3)] by blast+
        have yw: "is_wr P ?y" "sloc P ?y = sloc P r" using ev_parts(2)[OF ei'] sy(1,2) by blast+
        have at: "atomic_ev P ?y" using sy(7) by (simp add: swm_def)
        then obtain u' j q where yu: "?y = Acc u' j q" by (cases ?y) (auto simp: atomic_ev_def)
        have u': "u' \<in> src_threads P" using done_thread[OF ei] rh(1) yu by simp
        have kya: "knows_at L P g ?y a" unfolding knows_at_def using sy(4-6) by blast
        have da0: "done_ev S P s a" using knows_at_done[OF ei rh(1) kya] by blast
        have wa: "wx S P s x a" using A da0 by (auto simp: wx_def)
        have a2: "ga2 g a = None" using A g23[OF da0] by simp
        obtain p' where "r = Acc t ?k p'" using new sy(2,3) by blast
        then have rk: "r = Acc t ?k False" using sy(1) by (cases p') (auto dest: rd_part)
        have er: "ewg L r = Some ?w0" using rk by simp
        obtain x' where x': "sloc P r = Some x'" using sy(1) rk by (auto dest: rd_addr)
        have yx: "sloc P ?y = Some x'" using yw(2) x' by simp
        have ea0: "ewg L a \<noteq> None" using ea[OF a2] .
        \<comment> \<open>a remote acquire that reads what another work-group wrote opens its window\<close>
        have opens: "rexempt L S P s' c a" if f: "fw L P ?w0 (sloc P r)" and ra: "racq_ev P r"
        proof -
          have rc: "racq_ev P c" using ra cp rk by (simp add: racq_ev_def)
          have sc': "sloc P c = sloc P r" using cp rk by simp
          have rw: "rwin ?xs (Suc ?n) (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s' w))"
            unfolding rwin_def using nl vi by (intro exI[of _ ?n]) auto
          show ?thesis
            unfolding rexempt_def using cp rc sc' f kdt vi pct rw by (intro exI[of _ t] exI[of _ ?k] exI[of _ p]) simp
        qed
        show ?thesis
        proof (cases "ewg L a = Some ?w0")
          case True
          then show ?thesis using ut by simp
        next
          case nh: False
          have ne: "ob P g b \<noteq> ?y" using rh(2) a2 nh sy(6) by auto
          \<comment> \<open>the location is at home where a waits\<close>
          have home: "wg_home L P (ewg L a) x'"
          proof (cases "racq_ev P ?y")
            case True
            \<comment> \<open>what a remote RMW's write knows waits where its location is at home\<close>
            then show ?thesis using rko rh(1) yw(1) yx sy(4-6) ne a2 unfolding rk_ok_def by blast
          next
            case nr: False
            have "\<not> rexempt L S P s ?y a" using nr unfolding rexempt_def by auto
            then have ha: "ewg L a = Some (wg_of L u')" using kh_at[OF kh u' rh(1) _ kya wa] yu a2 by auto
            have "\<not> wide_ev P ?y \<or> \<not> wshared L P x'"
            proof (rule ccontr)
              assume "\<not> (\<not> wide_ev P ?y \<or> \<not> wshared L P x')"
              then have "wshared L P x'" by blast
              then have "ga2 g (ob P g b) \<noteq> None" using ro yw(1) rh(1) yx sy(4,5) ne unfolding rel_ok_def by blast
              then show False using a2 sy(6) by simp
            qed
            moreover have "\<not> (wide_ev P ?y \<and> rstore_ev P ?y)"
            proof
              assume "wide_ev P ?y \<and> rstore_ev P ?y"
              then have "ga2 g (ob P g b) \<noteq> None" using ro yw(1) rh(1) yx sy(4,5) ne unfolding rel_ok_def by blast
              then show False using a2 sy(6) by simp
            qed
            ultimately show ?thesis using writer_home[OF sc yw(1) yx _ nr] yu ha by simp
          qed
          have "racq_ev P r \<and> fw L P ?w0 (Some x')"
            by (rule home_reader[OF sc home ea0 _ x' er]) (use sy(1) nh rd_not_rstore in auto)
          then show ?thesis using opens x' by simp
        qed
      qed
    qed
  qed
  \<comment> \<open>a flushed thread's known writes have reached the L2\<close>
  have kf: "ga2 g a \<noteq> None" if "wx S P s y a" "knows L S P s g t a" "flushed ?xs ?n" for y a
    using known_flushed[OF oi kh t wp that(3) nu that(1,2)] .
  \<comment> \<open>a write at device scope or wider that the step performs: its thread is
    flushed, and an RMW's read is at the L2\<close>
  have wide_new: "flushed ?xs ?n \<and> (\<forall>r. is_rd P r \<and> done_ev S P s' r \<and> \<not> done_ev S P s r
      \<longrightarrow> done_ev S P s (grf g' r) \<and> ga2 g (grf g' r) \<noteq> None)"
    if a: "is_wr P w" "done_ev S P s' w" "\<not> done_ev S P s w" "wide_ev P w" for w
  proof -
    obtain p where wk: "w = Acc t ?k p" and vis: "visible ?i" using new a(2,3) by blast
    have wide: "wide_ev P w" using a(4) .
    have ik: "?i = src_access B (src_code P t ! ?k) \<and> ?k < length (src_code P t)" using se(2)[OF vis] .
    \<comment> \<open>its source operation writes at device scope or wider\<close>
    obtain a0 r0 y0 where op: "src_code P t ! ?k = Op a0 r0 y0" and wa0: "wide_wr_op a0" and wr0: "wr (Op a0 r0 y0) p"
    proof (cases "src_code P t ! ?k")
      case (Op a1 r1 y1)
      have w1: "wr (Op a1 r1 y1) p" using a wk Op by (auto simp: ins_def)
      moreover have "op_scope (Op a1 r1 y1) \<in> {Device, AllDevices}" using wide wk Op by (simp add: wide_ev_def ins_def)
      ultimately have "wide_wr_op a1" by (cases a1) auto
      then show ?thesis using that Op w1 by blast
    next
      case (SetReg r1 v1)
      then show ?thesis using a wk by (simp add: ins_def)
    qed
    have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
    have xs: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
    have "flushed (concat (map (compile_instr S) (src_code P t))) ?n"
      by (rule compiled_vis_flushed[OF rows(1,2,4) ops _ _ _ op wa0]) (use nl vis xs in \<open>simp_all add: kd_def\<close>)
    then have fl: "flushed ?xs ?n" using xs by simp
    \<comment> \<open>an RMW at such scope reads at the L2\<close>
    have rmw_l2: "done_ev S P s (grf g' r) \<and> ga2 g (grf g' r) \<noteq> None"
      if r: "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" for r
    proof -
      obtain p' where "r = Acc t ?k p'" using new r(2,3) by blast
      then have "rd (Op a0 r0 y0) False" using r(1) op by (cases p') (auto simp: ins_def dest: rd_part)
      then obtain sc rm where "a0 = FetchInc sc rm" using wa0 by (cases a0) auto
      moreover have "a0 \<in> A \<union> B" using ops op ik by (metis nth_mem op_of_def insert_subset src_instr.simps(5))
      ultimately have "a0 \<in> B" using rows(4) wa0 unfolding rel_rows_def by blast
      then have "?i = INCL2 r0 y0" using ik op by simp
      then show ?thesis using rd_home[OF r] by blast
    qed
    show ?thesis using fl rmw_l2 by blast
  qed
  have ro': "rel_ok L S P s' g'"
    unfolding rel_ok_def
  proof (intro allI impI)
    fix w b x assume a: "is_wr P w \<and> done_ev S P s' w \<and> sloc P w = Some x \<and> (wshared L P x \<or> wide_ev P w \<and> rstore_ev P w)
      \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbm L P g' \<and> ob P g' b \<noteq> w"
    show "ga2 g' (ob P g' b) \<noteq> None"
    proof (cases "done_ev S P s w")
      case True
      have h: "(b, w) \<in> hbm L P g" using hbm_keep[OF ei gr _ True] a by blast
      have db: "done_ev S P s b" using hbm_done[OF ei h True] .
      have ob: "ob P g' b = ob P g b" using gr db by (simp add: ob_def)
      have dob: "done_ev S P s (ob P g b)" using ob_done[OF db] a by blast
      have "ga2 g (ob P g b) \<noteq> None" using ro a True h ob unfolding rel_ok_def by metis
      then show ?thesis using ob g23[OF dob] by simp
    next
      case nw: False
      obtain p where wk: "w = Acc t ?k p" and vis: "visible ?i" using new a nw by blast
      have ew: "ewg L w \<noteq> None" using wk by simp
      have wide: "wide_ev P w" using a ew unfolding wshared_def by blast
      have ws: "wshared L P x" if "is_rd P r" "r = Acc t ?k p'" for r p'
      proof -
        have "\<not> rstore_ev P w" using that wk a by (cases p'; cases p) (auto simp: rstore_ev_def dest: rd_part)
        then show ?thesis using a by blast
      qed
      have fl: "flushed ?xs ?n" and rmw_l2: "\<And>r. is_rd P r \<Longrightarrow> done_ev S P s' r \<Longrightarrow> \<not> done_ev S P s r
          \<Longrightarrow> done_ev S P s (grf g' r) \<and> ga2 g (grf g' r) \<noteq> None"
        using wide_new[of w] a nw wide by blast+
      have po_new: "sthread y = Some t" if "(y, c) \<in> src_po P" "\<not> done_ev S P s c" "done_ev S P s' c" for y c
        using that new_t[OF that(3,2)] by (auto simp: src_po_def)
      have h: "(b, w) \<in> hbm L P g'" using a by blast
      have hn: "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
         \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
        by (rule hbm_into_new[OF ei ei' gr h _ nw]) (use a po_new in blast)+
      then consider (n) "\<not> done_ev S P s b"
        | (o) y where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s b" "done_ev S P s y" "sthread y = Some t"
        | (sy) y r where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s b" "done_ev S P s y"
            "(y, r) \<in> swm L P g'" "\<not> done_ev S P s r" "done_ev S P s' r"
        by blast
      then show ?thesis
      proof cases
        case n
        have db': "done_ev S P s' b" using hbm_done[OF ei' h] a by blast
        obtain p' where bk: "b = Acc t ?k p'" using new db' n by blast
        show ?thesis
        proof (cases "is_rd P b")
          case True
          have "ob P g' b = grf g' b" using True by (simp add: ob_def)
          then show ?thesis using rmw_l2[OF True db' n] g23 by simp
        next
          case False
          then have "wr (ins P t ?k) p'" using a bk by auto
          moreover have "wr (ins P t ?k) p" using a wk by simp
          ultimately have "p' = p" using wr_unique by blast
          then show ?thesis using a False bk wk by (simp add: ob_def)
        qed
      next
        case (o y)
        have ob: "ob P g' b = ob P g b" using gr o(2) by (simp add: ob_def)
        have kb: "knows L S P s g t (ob P g b)" unfolding knows_def using a o by blast
        obtain y' where "wx S P s y' (ob P g b)" using ob_done[OF o(2)] a by blast
        then show ?thesis using kf[OF _ kb fl] ob g23 ob_done[OF o(2)] a by auto
      next
        case (sy y r)
        have r: "is_rd P r" "grf g' r = y" using sy(4) by (auto simp: swm_def)
        have ob: "ob P g' b = ob P g b" using gr sy(2) by (simp add: ob_def)
        have dob: "done_ev S P s (ob P g b)" using ob_done[OF sy(2)] a by blast
        show ?thesis
        proof (cases "ob P g b = y")
          case True
          then show ?thesis using rmw_l2[OF r(1) sy(6,5)] r(2) ob g23[OF dob] by simp
        next
          case False
          have yw: "is_wr P y" "sloc P y = sloc P r" using ev_parts(2)[OF ei'] r sy(6) by blast+
          have "b \<noteq> y" using False yw(1) by (auto simp: ob_wr)
          then have hy: "(b, y) \<in> hbm L P g" using sy(1) by blast
          obtain p' where rk: "r = Acc t ?k p'" using new sy(6,5) by blast
          have "wshared L P x" using ws[OF r(1) rk] .
          moreover have "sloc P r = Some x" using a wk rk by simp
          ultimately have "ga2 g (ob P g b) \<noteq> None" using ro yw sy(3) a hy False unfolding rel_ok_def by fastforce
          then show ?thesis using ob g23[OF dob] by simp
        qed
      qed
    qed
  qed
  have rk': "rk_ok L S P s' g'"
    unfolding rk_ok_def
  proof (intro allI impI)
    fix w b x assume a: "racq_ev P w \<and> is_wr P w \<and> done_ev S P s' w \<and> sloc P w = Some x
      \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbm L P g' \<and> ob P g' b \<noteq> w \<and> ga2 g' (ob P g' b) = None"
    show "wg_home L P (ewg L (ob P g' b)) x"
    proof (cases "done_ev S P s w")
      case True
      have h: "(b, w) \<in> hbm L P g" using hbm_keep[OF ei gr _ True] a by blast
      have db: "done_ev S P s b" using hbm_done[OF ei h True] .
      have ob: "ob P g' b = ob P g b" using gr db by (simp add: ob_def)
      have dob: "done_ev S P s (ob P g b)" using ob_done[OF db] a by blast
      have "ga2 g (ob P g b) = None" using a ob g23[OF dob] by simp
      then have "wg_home L P (ewg L (ob P g b)) x"
        using rko[unfolded rk_ok_def, rule_format, of w x b] a True h ob by simp
      then show ?thesis using ob by simp
    next
      case nw: False
      obtain p where wk: "w = Acc t ?k p" and vis: "visible ?i" using new a nw by blast
      have fl: "flushed ?xs ?n" and rmw_l2: "\<And>r. is_rd P r \<Longrightarrow> done_ev S P s' r \<Longrightarrow> \<not> done_ev S P s r
          \<Longrightarrow> done_ev S P s (grf g' r) \<and> ga2 g (grf g' r) \<noteq> None"
        using wide_new[of w] a nw racq_wide by blast+
      have po_new: "sthread y = Some t" if "(y, c) \<in> src_po P" "\<not> done_ev S P s c" "done_ev S P s' c" for y c
        using that new_t[OF that(3,2)] by (auto simp: src_po_def)
      have h: "(b, w) \<in> hbm L P g'" using a by blast
      have hn: "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
         \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
        by (rule hbm_into_new[OF ei ei' gr h _ nw]) (use a po_new in blast)+
      then consider (n) "\<not> done_ev S P s b"
        | (o) y where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s b" "done_ev S P s y" "sthread y = Some t"
        | (sy) y r where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s b" "done_ev S P s y"
            "(y, r) \<in> swm L P g'" "\<not> done_ev S P s r" "done_ev S P s' r"
        by blast
      then show ?thesis
      proof cases
        case n
        \<comment> \<open>the RMW's own read reads at the L2\<close>
        have db': "done_ev S P s' b" using hbm_done[OF ei' h] a by blast
        obtain p' where bk: "b = Acc t ?k p'" using new db' n by blast
        show ?thesis
        proof (cases "is_rd P b")
          case True
          have "ob P g' b = grf g' b" using True by (simp add: ob_def)
          then show ?thesis using rmw_l2[OF True db' n] g23 a by auto
        next
          case False
          then have "wr (ins P t ?k) p'" using a bk by auto
          moreover have "wr (ins P t ?k) p" using a wk by simp
          ultimately have "p' = p" using wr_unique by blast
          then show ?thesis using a False bk wk by (simp add: ob_def)
        qed
      next
        case (o y)
        \<comment> \<open>what its thread knew has reached the L2\<close>
        have ob: "ob P g' b = ob P g b" using gr o(2) by (simp add: ob_def)
        have kb: "knows L S P s g t (ob P g b)" unfolding knows_def using a o by blast
        obtain y' where "wx S P s y' (ob P g b)" using ob_done[OF o(2)] a by blast
        then show ?thesis using kf[OF _ kb fl] ob g23 ob_done[OF o(2)] a by auto
      next
        case (sy y r)
        \<comment> \<open>what the write it reads knew\<close>
        have r: "is_rd P r" "grf g' r = y" using sy(4) by (auto simp: swm_def)
        have ob: "ob P g' b = ob P g b" using gr sy(2) by (simp add: ob_def)
        have dob: "done_ev S P s (ob P g b)" using ob_done[OF sy(2)] a by blast
        have a2: "ga2 g (ob P g b) = None" using a ob g23[OF dob] by simp
        have ny: "ob P g b \<noteq> y" using rmw_l2[OF r(1) sy(6,5)] r(2) a2 by auto
        have yw: "is_wr P y" "sloc P y = sloc P r" using ev_parts(2)[OF ei'] r sy(6) by blast+
        have "b \<noteq> y" using ny yw(1) by (auto simp: ob_wr)
        then have hy: "(b, y) \<in> hbm L P g" using sy(1) by blast
        obtain p' where "r = Acc t ?k p'" using new sy(6,5) by blast
        then have yx: "sloc P y = Some x" using a wk yw(2) by simp
        show ?thesis
        proof (cases "racq_ev P y")
          case True
          then have "wg_home L P (ewg L (ob P g b)) x"
            using rko[unfolded rk_ok_def, rule_format, of y x b] yw(1) sy(3) yx a hy ny a2 by simp
          then show ?thesis using ob by simp
        next
          case nr: False
          have at: "atomic_ev P y" using sy(4) by (simp add: swm_def)
          then obtain u' j q where yu: "y = Acc u' j q" by (cases y) (auto simp: atomic_ev_def)
          have u': "u' \<in> src_threads P" using done_thread[OF ei] sy(3) yu by simp
          have kya: "knows_at L P g y (ob P g b)" unfolding knows_at_def using a hy by blast
          obtain z where wa: "wx S P s z (ob P g b)" using ob_done[OF sy(2)] a by blast
          have "\<not> rexempt L S P s y (ob P g b)" using nr unfolding rexempt_def by auto
          then have ha: "ewg L (ob P g b) = Some (wg_of L u')" using kh_at[OF kh u' sy(3) _ kya wa] yu a2 by auto
          have "\<not> wide_ev P y \<or> \<not> wshared L P x"
          proof (rule ccontr)
            assume "\<not> (\<not> wide_ev P y \<or> \<not> wshared L P x)"
            then have "wshared L P x" by blast
            then have "ga2 g (ob P g b) \<noteq> None" using ro yw(1) sy(3) yx a hy ny unfolding rel_ok_def by blast
            then show False using a2 by simp
          qed
          moreover have "\<not> (wide_ev P y \<and> rstore_ev P y)"
          proof
            assume "wide_ev P y \<and> rstore_ev P y"
            then have "ga2 g (ob P g b) \<noteq> None" using ro yw(1) sy(3) yx a hy ny unfolding rel_ok_def by blast
            then show False using a2 by simp
          qed
          ultimately show ?thesis using writer_home[OF sc yw(1) yx _ nr] yu ha ob by simp
        qed
      qed
    qed
  qed
  show ?thesis using kh' ro' rk' by (simp add: hb_ok_def)
qed

section \<open>Coherence after happens-before\<close>

text \<open>A write is observed by no access before it in happens-before, and is
  settled after every write of its location observed before it.\<close>
definition kw_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "kw_ok L S P s g \<longleftrightarrow> (\<forall>w b. is_wr P w \<and> done_ev S P s w \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbm L P g \<longrightarrow>
     ob P g b \<noteq> w \<and> (sloc P b = sloc P w \<longrightarrow> sb L g (ob P g b) w))"

lemma hbm_initial: "done_ev S P (initial (src_init P)) w \<Longrightarrow> (b, w) \<notin> hbm L P (ghost0 P)"
proof
  assume d: "done_ev S P (initial (src_init P)) w" and h: "(b, w) \<in> hbm L P (ghost0 P)"
  have nd: "\<not> done_ev S P (initial (src_init P)) (Acc t k p)" for t k p by simp
  obtain c where "(c, w) \<in> src_po P \<union> swm L P (ghost0 P)" using h unfolding hbm_def by (auto elim: tranclE)
  then show False using d nd by (cases w) (auto simp: src_po_def swm_def)
qed

lemma kw_ok_initial: "kw_ok L S P (initial (src_init P)) (ghost0 P)"
  using hbm_initial by (auto simp: kw_ok_def)

lemma kw_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and ei: "ev_inv S P s g"
    and kw: "kw_ok L S P s g"
  shows "kw_ok L S P s' g'"
  unfolding kw_ok_def
proof (intro allI impI)
  fix w b assume a: "is_wr P w \<and> done_ev S P s' w \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbm L P g'"
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have h: "hbm L P g' = hbm L P g" unfolding hbm_def swm_def gr ..
  have o: "ob P g' = ob P g" unfolding ob_def[abs_def] gr ..
  have dw: "done_ev S P s w" using a done_same[OF pc] by simp
  have hb: "(b, w) \<in> hbm L P g" using a h by simp
  have db: "done_ev S P s b" using hbm_done[OF ei hb dw] .
  have k0: "ob P g b \<noteq> w \<and> (sloc P b = sloc P w \<longrightarrow> sb L g (ob P g b) w)" using kw a dw hb unfolding kw_ok_def by blast
  have "sb L g' (ob P g b) w" if "sloc P b = sloc P w"
  proof -
    obtain y where y: "sloc P w = Some y" using a wr_loc by blast
    have "wx S P s y (ob P g b)" using ob_wx_done[OF ei _ db] a that y by simp
    moreover have "wx S P s y w" using a dw y by (simp add: wx_def)
    ultimately show ?thesis using k k0 that unfolding sb_keep_def by blast
  qed
  then show "ob P g' b \<noteq> w \<and> (sloc P b = sloc P w \<longrightarrow> sb L g' (ob P g' b) w)" using k0 o by simp
qed

text \<open>Happens-before from an event a thread step performs to another: only
  from the step's read to its write.\<close>
lemma hbm_from_new:
  assumes ei': "ev_inv S P s' g'"
    and new: "\<And>e. done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e \<Longrightarrow> \<exists>p. e = Acc t k p"
    and nd: "\<And>p. \<not> done_ev S P s (Acc t k p)" and od: "\<And>j p. j < k \<Longrightarrow> done_ev S P s (Acc t j p)"
    and rdold: "\<And>r. is_rd P r \<Longrightarrow> done_ev S P s' r \<Longrightarrow> done_ev S P s (grf g' r)"
    and h: "(c, d) \<in> hbm L P g'" and c: "\<not> done_ev S P s c" "done_ev S P s' c" and d: "done_ev S P s' d"
  shows "c = Acc t k False \<and> d = Acc t k True"
proof -
  have dk: "j = k" if "done_ev S P s' (Acc t j q)" "k \<le> j" for j q
  proof (cases "done_ev S P s (Acc t j q)")
    case True
    then show ?thesis using that(2) nd by (cases "j = k") (auto simp: not_le)
  next
    case False
    then show ?thesis using new[OF that(1)] by simp
  qed
  obtain p where cp: "c = Acc t k p" using new[OF c(2,1)] by blast
  have "done_ev S P s' d \<longrightarrow> c = Acc t k False \<and> d = Acc t k True" using h[unfolded hbm_def]
  proof (induction rule: trancl_induct)
    case (base d)
    show ?case
    proof
      assume dd: "done_ev S P s' d"
      show "c = Acc t k False \<and> d = Acc t k True"
      proof (cases "(c, d) \<in> src_po P")
        case True
        then obtain j q where dj: "d = Acc t j q" "k < j \<or> (k = j \<and> \<not> p \<and> q)" using cp by (auto simp: src_po_def)
        then have "j = k" using dk dd by fastforce
        then show ?thesis using dj cp by simp
      next
        case False
        then have "is_rd P d" "grf g' d = c" using base by (auto simp: swm_def)
        then show ?thesis using rdold[OF _ dd] c(1) by simp
      qed
    qed
  next
    case (step y d)
    show ?case
    proof
      assume dd: "done_ev S P s' d"
      have dy: "done_ev S P s' y" using hbm_edge_done[OF ei' step(2) dd] .
      have yk: "y = Acc t k True" using step(3) dy by blast
      show "c = Acc t k False \<and> d = Acc t k True"
      proof (cases "(y, d) \<in> src_po P")
        case True
        then obtain j q where dj: "d = Acc t j q" "k < j" using yk by (auto simp: src_po_def)
        then show ?thesis using dk dd by fastforce
      next
        case False
        then have "is_rd P d" "grf g' d = y" using step(2) by (auto simp: swm_def)
        then have "done_ev S P s y" using rdold[OF _ dd] by simp
        then show ?thesis using yk nd by simp
      qed
    qed
  qed
  then show ?thesis using d by blast
qed

lemma sb_ga2: "sb L g e h \<Longrightarrow> ga2 g h \<noteq> None \<Longrightarrow> (ga2 g e = None \<longrightarrow> ga3 g e = None) \<Longrightarrow> ga2 g e \<noteq> None"
  by (auto simp: sb_def)

text \<open>A thread step keeps it: a write the step performs in the L1 is the
  newest of its work-group, and one at the L2 comes after the writes its
  thread knows, all of which have reached the L2 (its row flushed first).\<close>
lemma kw_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and wr: "wr_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and rl: "rl_rows S A B"
    and wp: "well_placed L P" and gi: "ginv L S P s' g'"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and hb: "hb_ok L S P s g" and hb': "hb_ok L S P s' g'" and kw: "kw_ok L S P s g"
  shows "kw_ok L S P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t" and ?w0 = "wg_of L t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" and li: "lines_inv S P s g" and ti: "time_inv S P s g" using inv by (simp_all add: ginv_def)
  have ei': "ev_inv S P s' g'" and ti': "time_inv S P s' g'" using gi by (simp_all add: ginv_def)
  have kh: "kh_ok L S P s g" using hb by (simp add: hb_ok_def)
  have kh': "kh_ok L S P s' g'" using hb' by (simp add: hb_ok_def)
  have ho: "home_ok L s g" using wr_okD(8)[OF wr] .
  have c0: "0 < clk g" using wr_okD(1)[OF wr] .
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have g1: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using se(4)[OF that] .
  have new: "(\<exists>p. e = Acc t ?k p) \<and> visible ?i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] .
  have new_t: "sthread e = Some t" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using new[OF that] by auto
  have nd: "\<not> done_ev S P s (Acc t ?k p)" for p by simp
  have od: "done_ev S P s (Acc t j p)" if "j < ?k" for j p using that by simp
  have nl: "?n < length ?xs" by (rule step_shape[OF st rows(1-3)]) simp
  have nu: "\<not> unflushed L s t" by (rule step_shape[OF st rows(1-3)]) simp
  have gs2: "clk g < gt g' e \<and> ga3 g' e = None
      \<and> ((ga2 g' e = None \<and> (\<exists>y v r. sloc P e = Some y \<and> (?i = ST v y \<or> ?i = INCL1 r y)))
         \<or> (ga2 g' e = Some (gt g' e) \<and> (\<exists>r x. ?i = INCL2 r x)))"
    if "is_wr P e" "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using gs that by (simp add: gstep_def)
  have sbo: "sb L g' a h = sb L g a h" if "done_ev S P s a" "done_ev S P s h" for a h
    using g1[OF that(1)] g1[OF that(2)] by (intro sb_cong) auto
  \<comment> \<open>the step's read reads a line: a write performed before, at home\<close>
  have rd_old: "done_ev S P s (grf g' r) \<and> wx S P s (the (sloc P r)) (grf g' r)
      \<and> ((\<exists>r0 y0. ?i = INCL2 r0 y0) \<longrightarrow> ga2 g (grf g' r) \<noteq> None)"
    if r: "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" for r
    using step_read_home[OF inv wr t st rows(1-3) gs gv r] by blast
  have rdold: "done_ev S P s (grf g' r)" if "is_rd P r" "done_ev S P s' r" for r
  proof (cases "done_ev S P s r")
    case True
    then show ?thesis using ev_parts(2)[OF ei] that(1) gr by auto
  next
    case False
    then show ?thesis using rd_old[OF that False] by blast
  qed
  have newk: "\<exists>p. e = Acc t ?k p" if "done_ev S P s' e" "\<not> done_ev S P s e" for e using new[OF that] by blast
  show ?thesis
    unfolding kw_ok_def
  proof (intro allI impI)
    fix w b assume a: "is_wr P w \<and> done_ev S P s' w \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbm L P g'"
    have h: "(b, w) \<in> hbm L P g'" using a by blast
    have db': "done_ev S P s' b" using hbm_done[OF ei' h] a by blast
    show "ob P g' b \<noteq> w \<and> (sloc P b = sloc P w \<longrightarrow> sb L g' (ob P g' b) w)"
    proof (cases "done_ev S P s w")
      case True
      have hw: "(b, w) \<in> hbm L P g" using hbm_keep[OF ei gr h True] .
      have db: "done_ev S P s b" using hbm_done[OF ei hw True] .
      have o: "ob P g' b = ob P g b" using gr db by (simp add: ob_def)
      have k0: "ob P g b \<noteq> w \<and> (sloc P b = sloc P w \<longrightarrow> sb L g (ob P g b) w)"
        using kw a True hw unfolding kw_ok_def by blast
      have dob: "done_ev S P s (ob P g b)" using db ev_parts(2)[OF ei] by (auto simp: ob_def)
      show ?thesis using k0 o sbo[OF dob True] by simp
    next
      case nw: False
      obtain p where wk: "w = Acc t ?k p" using newk a nw by blast
      obtain x where x: "sloc P w = Some x" using a wr_loc by blast
      \<comment> \<open>the write b observes was performed before the step\<close>
      have ob_old: "done_ev S P s (ob P g' b) \<and> (\<not> done_ev S P s b \<longrightarrow> b = Acc t ?k False \<and> ob P g' b = grf g' b)"
      proof (cases "done_ev S P s b")
        case True
        then show ?thesis using ev_parts(2)[OF ei] gr by (auto simp: ob_def)
      next
        case False
        have dw': "done_ev S P s' w" using a by blast
        have bw: "b = Acc t ?k False \<and> w = Acc t ?k True"
          using hbm_from_new[OF ei' newk nd od rdold h False db' dw'] .
        then have "wr (ins P t ?k) True" using a by simp
        then obtain sc rm r0 y0 where "ins P t ?k = Op (FetchInc sc rm) r0 y0" using wr_part by blast
        then have "is_rd P b" using bw db' a by (auto simp: acc_def)
        then show ?thesis using rdold[OF _ db'] bw by (simp add: ob_def)
      qed
      have ne: "ob P g' b \<noteq> w" using ob_old nw by auto
      have "sb L g' (ob P g' b) w" if sl: "sloc P b = sloc P w"
      proof -
        let ?a = "ob P g' b"
        have wa: "wx S P s' x ?a" using ob_wx_done[OF ei' _ db'] a sl x by simp
        have da: "done_ev S P s ?a" using ob_old by blast
        have ka: "knows L S P s' g' t ?a" unfolding knows_def
          by (rule disjI2, rule exI[of _ b], rule exI[of _ w]) (use a wk in auto)
        have kaw: "knows_at L P g' w ?a" unfolding knows_at_def using a by blast
        \<comment> \<open>a write in the L1 is no remote RMW's (rl_rows performs those at the L2)\<close>
        have nre: "\<not> rexempt L S P s' w ?a" if l1: "ga2 g' w = None"
        proof
          assume "rexempt L S P s' w ?a"
          then have rw: "racq_ev P w" unfolding rexempt_def by auto
          obtain a0 r0 y0 where o: "ins P t ?k = Op a0 r0 y0" "racq_op a0" using racq_ev_op rw wk by blast
          obtain sc where fa: "a0 = FetchInc sc True" "sc \<in> {Device, AllDevices}"
            using o a wk by (cases a0) auto
          have vis: "visible ?i" using new a nw by blast
          have ik: "?i = src_access B (src_code P t ! ?k) \<and> ?k < length (src_code P t)" using se(2)[OF vis] .
          have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
          have "src_code P t ! ?k = Op a0 r0 y0" using o by (simp add: ins_def)
          then have "a0 \<in> A \<union> B" using ops ik by (metis nth_mem op_of_def insert_subset src_instr.simps(5))
          then have "a0 \<in> B" using rl fa unfolding rl_rows_def by blast
          then have "?i = INCL2 r0 y0" using ik o by (simp add: ins_def)
          then show False using gs2[OF _ _ nw] a l1 by auto
        qed
        have home3: "ga3 g' ?a = None \<longrightarrow> dv L ?a = Some (dev_of L ?w0)"
          using kh' t wa ka unfolding kh_ok_def by blast
        have home: "ga2 g' w = None \<Longrightarrow> (ga2 g' ?a = None \<longrightarrow> ewg L ?a = Some ?w0)"
          using kh_at[OF kh' t _ _ kaw wa nre] a wk by auto
        have t23: "ga2 g' ?a = None \<longrightarrow> ga3 g' ?a = None"
        proof (cases "\<exists>z. ?a = Init z")
          case True
          then show ?thesis using ti' by (auto simp: time_inv_def)
        next
          case False
          then show ?thesis using time_perf[OF ti' wa] by blast
        qed
        have lt: "gt g' ?a < gt g' w \<and> (\<forall>n. ga2 g' ?a = Some n \<longrightarrow> n < gt g' w)"
        proof -
          have "gt g ?a < clk g \<and> (\<forall>n. ga2 g ?a = Some n \<longrightarrow> n < clk g)"
          proof (cases "\<exists>z. ?a = Init z")
            case True
            then show ?thesis using ti c0 by (auto simp: time_inv_def)
          next
            case False
            have "wx S P s x ?a" using wa da by (auto simp: wx_def)
            moreover have "\<forall>y. ?a \<noteq> Init y" using False by blast
            ultimately show ?thesis using time_perf[OF ti] by blast
          qed
          moreover have "clk g < gt g' w" using gs2[OF _ _ nw] a by blast
          ultimately show ?thesis using g1[OF da] by auto
        qed
        have w2: "ga3 g' w = None" "ewg L w = Some ?w0" "dv L w = Some (dev_of L ?w0)"
          using gs2[OF _ _ nw] a wk by (auto simp: dv_def)
        show ?thesis
        proof (cases "ga2 g' w = None")
          case True
          then show ?thesis using sb_fresh1[of g' ?a L ?w0 w] home[OF True] home3 t23 w2 lt by blast
        next
          case False
          then have w2': "ga2 g' w = Some (gt g' w)" "\<exists>r x. ?i = INCL2 r x" using gs2[OF _ _ nw] a by auto
          \<comment> \<open>an increment at the L2: what its thread knows has reached the L2\<close>
          have fl: "flushed ?xs ?n"
          proof -
            have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
            obtain r0 x0 where "?i = INCL2 r0 x0" using w2'(2) by blast
            then show ?thesis using compiled_flushed[OF rows(1,2,4) ops, of ?n r0 x0] nl by (simp add: compile_def)
          qed
          have kf: "ga2 g e \<noteq> None" if "wx S P s y e" "knows L S P s g t e" for y e
            using known_flushed[OF oi kh t wp fl nu that] .
          have a2: "ga2 g ?a \<noteq> None"
          proof (cases "done_ev S P s b")
            case nb: False
            then have "b = Acc t ?k False" "?a = grf g' b" using ob_old by blast+
            moreover have "is_rd P b"
            proof (rule ccontr)
              assume "\<not> is_rd P b"
              then have "ob P g' b = b" by (simp add: ob_def)
              then show False using ob_old nb by metis
            qed
            ultimately show ?thesis using rd_old[OF _ db' nb] w2'(2) by auto
          next
            case db: True
            have po_new: "sthread y = Some t" if "(y, c) \<in> src_po P" "\<not> done_ev S P s c" "done_ev S P s' c" for y c
              using that new_t[OF that(3,2)] by (auto simp: src_po_def)
            have hn: "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
               \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
              by (rule hbm_into_new[OF ei ei' gr h _ nw]) (use a po_new in blast)+
            then obtain y where y: "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s y"
                "sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)"
              using db by blast
            have ob: "?a = ob P g b" using gr db by (simp add: ob_def)
            have wx0: "wx S P s x (ob P g b)" using ob_wx_done[OF ei _ db] a sl x by simp
            show ?thesis
            proof (cases "sthread y = Some t")
              case True
              have "knows L S P s g t (ob P g b)" unfolding knows_def
                by (rule disjI2, rule exI[of _ b], rule exI[of _ y]) (use a y True in auto)
              then show ?thesis using kf[OF wx0] ob by simp
            next
              case False
              then obtain r where r: "(y, r) \<in> swm L P g'" "\<not> done_ev S P s r" "done_ev S P s' r" using y(3) by blast
              have ry: "is_rd P r" "grf g' r = y" using r(1) by (auto simp: swm_def)
              have y2: "ga2 g y \<noteq> None" using rd_old[OF ry(1) r(3,2)] w2'(2) ry(2) by auto
              have yw: "is_wr P y" "sloc P y = sloc P r" using ev_parts(2)[OF ei'] ry r(3) by auto
              show ?thesis
              proof (cases "b = y")
                case True
                then show ?thesis using y2 ob yw(1) by (simp add: ob_wr)
              next
                case False
                then have hy: "(b, y) \<in> hbm L P g" using y(1) by blast
                obtain p' where "r = Acc t ?k p'" using newk r(3,2) by blast
                then have "sloc P r = Some x" using x wk by simp
                then have "sb L g (ob P g b) y" using kw yw y(2) a hy sl x unfolding kw_ok_def by auto
                moreover have "ga2 g (ob P g b) = None \<longrightarrow> ga3 g (ob P g b) = None"
                proof (cases "\<exists>z. ob P g b = Init z")
                  case True
                  then show ?thesis using ti by (auto simp: time_inv_def)
                next
                  case False
                  then show ?thesis using time_perf[OF ti wx0] by blast
                qed
                ultimately show ?thesis using sb_ga2 y2 ob by metis
              qed
            qed
          qed
          have "ga2 g' ?a \<noteq> None" using a2 g1[OF da] by simp
          moreover have "ga3 g' ?a = None \<longrightarrow> dv L ?a = Some (dev_of L ?w0)" using home3 by blast
          moreover have "the (ga2 g' ?a) < gt g' w" using lt \<open>ga2 g' ?a \<noteq> None\<close> by auto
          ultimately show ?thesis using w2 w2'(1) by (intro sb_fresh2[of g' ?a L "dev_of L ?w0" "gt g' w" w]) simp_all
        qed
      qed
      then show ?thesis using ne by blast
    qed
  qed
qed

section \<open>What a release hands over is fresh in its work-group's L1\<close>

text \<open>While a thread waits for the invalidation after its last access, what
  that access knows of its own location may be newer than the L1's lines,
  and all it knows when another work-group writes that location.\<close>
definition exempt :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> sev \<Rightarrow> sev \<Rightarrow> bool" where
  "exempt L S P s c a \<longleftrightarrow> (\<exists>t k p. c = Acc t k p \<and> Suc k = kd S P s t \<and> win (instrs (compile S P) t) (pc s t)
     \<and> (sloc P a = sloc P c \<or> fw L P (wg_of L t) (sloc P c)))"

text \<open>What a performed access knows is settled before its work-group's
  readable L1 lines, but what is exempt.\<close>
definition kl_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "kl_ok L S P s g \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>c a x. done_ev S P s c \<and> sthread c = Some t \<and> knows_at L P g c a
     \<and> wx S P s x a \<and> readable (l1 s (wg_of L t) x) \<and> \<not> exempt L S P s c a \<longrightarrow> sb L g a (h1 g (wg_of L t) x))"

text \<open>The program's threads sit on one device.\<close>
definition one_dev :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "one_dev L P \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>u \<in> src_threads P. dev_of L (wg_of L t) = dev_of L (wg_of L u))"

text \<open>Conflicting accesses of two threads sit on one device: devices share
  only locations no thread writes.\<close>
definition dev_conflicts :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "dev_conflicts L P \<longleftrightarrow> (\<forall>a b. is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
     \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<longrightarrow> dv L a = dv L b)"

lemma one_dev_conflicts:
  assumes od: "one_dev L P" shows "dev_conflicts L P"
  unfolding dev_conflicts_def
proof (intro allI impI)
  fix a b assume ab: "is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None"
  obtain t i p where a: "a = Acc t i p" using ab by (cases a) auto
  obtain u j q where b: "b = Acc u j q" using ab by (cases b) auto
  have "t \<in> src_threads P" using ab a by (simp add: acc_def)
  moreover have "u \<in> src_threads P" using ab b by (auto simp: acc_def)
  ultimately have "dev_of L (wg_of L t) = dev_of L (wg_of L u)" using od unfolding one_dev_def by blast
  then show "dv L a = dv L b" using a b by (simp add: dv_def)
qed

text \<open>Conflicting accesses of two devices are all-devices atomics, neither
  remote: devices share a written location only through all-devices
  atomics (race freedom gives it, remote all-devices operations aside:
  race_free_dev_scoped).\<close>
definition dev_sys :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "dev_sys L P \<longleftrightarrow> (\<forall>a b. is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
     \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> dv L a \<noteq> dv L b
     \<longrightarrow> sys_ev P a \<and> sys_ev P b \<and> \<not> remote_ev P a \<and> \<not> remote_ev P b)"

lemma dev_conflicts_sys: "dev_conflicts L P \<Longrightarrow> dev_sys L P"
  unfolding dev_conflicts_def dev_sys_def by blast

text \<open>So a write and a conflicting access, one of them not an all-devices
  atomic or remote, sit on one device.\<close>
lemma dv_sys:
  assumes ds: "dev_sys L P" and a: "is_wr P a" and b: "is_rd P b \<or> is_wr P b" and ab: "sloc P a = sloc P b"
    and e: "ewg L a \<noteq> None" "ewg L b \<noteq> None"
    and n: "\<not> sys_ev P a \<or> \<not> sys_ev P b \<or> remote_ev P a \<or> remote_ev P b"
  shows "dv L a = dv L b"
  using ds a b ab e n unfolding dev_sys_def by blast

text \<open>A program without remote all-devices operations, race-free, meets it:
  two devices share a written location only through all-devices atomics
  (race_free_dev_scoped).\<close>
definition no_remote_sys :: "src_program \<Rightarrow> bool" where
  "no_remote_sys P \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>i < length (src_code P t).
     op_remote (ins P t i) \<longrightarrow> op_scope (ins P t i) \<noteq> AllDevices)"

lemma no_remote_sys_ev:
  assumes ns: "no_remote_sys P" and e: "is_ev P e" and r: "remote_ev P e" shows "\<not> sys_ev P e"
  using assms by (cases e) (auto simp: no_remote_sys_def acc_def remote_ev_def sys_ev_def)

theorem race_free_dev_sys:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and rem: "load_promotion L P" and ns: "no_remote_sys P"
  shows "dev_sys L P"
  using race_free_dev_scoped[OF nr rfree fin rem] no_remote_sys_ev[OF ns] ev_of
  unfolding dev_sys_def dev_scoped_def xdev_pair_def by meson

text \<open>The operations that read at device scope or wider.\<close>
fun wide_rd_op :: "src_op \<Rightarrow> bool" where
  "wide_rd_op (Load sc rm) = (sc \<in> {Device, AllDevices})"
| "wide_rd_op (FetchInc sc rm) = (sc \<in> {Device, AllDevices})"
| "wide_rd_op (Store sc rm) = False"

text \<open>ia_seq p xs: in xs every visible instruction is followed by an
  invalidation of the L1 before any other visible instruction (and before
  the end), with only quiet instructions between; p: one waits for its
  invalidation at the start.\<close>
fun ia_seq :: "bool \<Rightarrow> instr list \<Rightarrow> bool" where
  "ia_seq p [] = (\<not> p)"
| "ia_seq p (i # xs) = (case i of
      INVL1 _ \<Rightarrow> ia_seq False xs
    | _ \<Rightarrow> (if visible i then \<not> p \<and> ia_seq True xs else (quiet i \<or> \<not> p) \<and> ia_seq p xs))"

text \<open>A row whose visible instruction is followed by an invalidation of the
  L1, with only quiet instructions between.\<close>
definition inv_after :: "row \<Rightarrow> bool" where
  "inv_after rw \<longleftrightarrow> (\<forall>r x. ia_seq False (rw r x))"

text \<open>[RSP15] sec. 6: an acquire at device scope invalidates the L1 after
  its access (rsp-new's LD; INVL1 WG), and so does an increment at the L2.\<close>
definition acq_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> src_op set \<Rightarrow> bool" where
  "acq_rows S A B \<longleftrightarrow> (\<forall>a \<in> A \<union> B. wide_rd_op a \<or> a \<in> B \<longrightarrow> (\<exists>rw. S a = Some rw \<and> inv_after rw))"

lemma win_shift: "win ys n \<Longrightarrow> win (xs @ ys @ zs) (length xs + n)"
proof -
  assume "win ys n"
  then obtain j sc where j: "n \<le> j" "j < length ys" "ys ! j = INVL1 sc" "\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (ys ! m)"
    unfolding win_def by blast
  have "\<forall>m. length xs + n \<le> m \<and> m < length xs + j \<longrightarrow> quiet ((xs @ ys @ zs) ! m)"
  proof (intro allI impI)
    fix m assume m: "length xs + n \<le> m \<and> m < length xs + j"
    then have "m - length xs < length ys" "\<not> m < length xs" using j(2) by linarith+
    then have "(xs @ ys @ zs) ! m = ys ! (m - length xs)" by (simp add: nth_append)
    moreover have "n \<le> m - length xs \<and> m - length xs < j" using m by linarith
    ultimately show "quiet ((xs @ ys @ zs) ! m)" using j(4) by simp
  qed
  moreover have "(xs @ ys @ zs) ! (length xs + j) = INVL1 sc" using j(2,3) by (simp add: nth_append)
  ultimately show ?thesis unfolding win_def using j(1,2) by (intro exI[of _ "length xs + j"]) auto
qed

lemma win_Cons: "win xs n \<Longrightarrow> win (i # xs) (Suc n)"
  using win_shift[of xs n "[i]" "[]"] by simp

lemma win_Cons_quiet: "quiet i \<Longrightarrow> win xs 0 \<Longrightarrow> win (i # xs) 0"
proof -
  assume q: "quiet i" and "win xs 0"
  then obtain j sc where j: "j < length xs" "xs ! j = INVL1 sc" "\<forall>m. m < j \<longrightarrow> quiet (xs ! m)"
    unfolding win_def by auto
  have "\<forall>m. m < Suc j \<longrightarrow> quiet ((i # xs) ! m)"
  proof (intro allI impI)
    fix m assume "m < Suc j"
    then show "quiet ((i # xs) ! m)" using q j(3) by (cases m) auto
  qed
  then show ?thesis unfolding win_def using j(1,2) by (intro exI[of _ "Suc j"]) auto
qed

lemma ia_seq_win: "ia_seq p xs \<Longrightarrow> (p \<longrightarrow> win xs 0) \<and> (\<forall>m < length xs. visible (xs ! m) \<longrightarrow> win xs (Suc m))"
proof (induction xs arbitrary: p)
  case Nil
  then show ?case by simp
next
  case (Cons i xs)
  have suc: "\<forall>m < length (i # xs). visible ((i # xs) ! m) \<longrightarrow> win (i # xs) (Suc m)"
    if h: "\<forall>m < length xs. visible (xs ! m) \<longrightarrow> win xs (Suc m)" and z: "visible i \<longrightarrow> win xs 0"
  proof (intro allI impI)
    fix m assume "m < length (i # xs)" "visible ((i # xs) ! m)"
    then show "win (i # xs) (Suc m)" using h z win_Cons by (cases m) auto
  qed
  show ?case
  proof (cases "\<exists>sc. i = INVL1 sc")
    case True
    then obtain sc where sc: "i = INVL1 sc" by blast
    then have ih: "\<forall>m < length xs. visible (xs ! m) \<longrightarrow> win xs (Suc m)" using Cons by simp
    have "win (i # xs) 0" using sc unfolding win_def by (intro exI[of _ 0]) auto
    then show ?thesis using suc[OF ih] sc by simp
  next
    case ni: False
    show ?thesis
    proof (cases "visible i")
      case True
      then have a: "\<not> p" "ia_seq True xs" using Cons.prems ni by (cases i; simp)+
      have ih: "win xs 0" "\<forall>m < length xs. visible (xs ! m) \<longrightarrow> win xs (Suc m)" using Cons.IH[OF a(2)] by blast+
      then show ?thesis using suc a(1) by blast
    next
      case False
      then have a: "quiet i \<or> \<not> p" "ia_seq p xs" using Cons.prems ni by (cases i; simp)+
      have ih: "p \<longrightarrow> win xs 0" "\<forall>m < length xs. visible (xs ! m) \<longrightarrow> win xs (Suc m)" using Cons.IH[OF a(2)] by blast+
      have "p \<longrightarrow> win (i # xs) 0" using a(1) ih(1) win_Cons_quiet by blast
      then show ?thesis using suc[OF ih(2)] False by blast
    qed
  qed
qed

text \<open>So in code compiled by such rows, an access that reads at device
  scope or wider, or increments at the L2, waits for an invalidation.\<close>
lemma compiled_win:
  assumes rows: "l1_rows S A" "l2_rows S B" "acq_rows S A B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x" "wide_rd_op a \<or> a \<in> B"
  shows "win (concat (map (compile_instr S) c)) (Suc n)"
proof -
  obtain rw pre post m where rw: "a \<in> A \<union> B" "S a = Some rw" "concat (map (compile_instr S) c) = pre @ rw r x @ post"
      "n = length pre + m" "m < length (rw r x)" "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "inv_after rw" using rows(3) w(2) rw(1,2) by (auto simp: acq_rows_def)
  then have "win (rw r x) (Suc m)" using ia_seq_win[of False "rw r x"] rw(5,6) by (simp add: inv_after_def)
  then show ?thesis using win_shift[of "rw r x" "Suc m" pre post] rw(3,4) by simp
qed

lemma visible_no_win: "n < length xs \<Longrightarrow> visible (xs ! n) \<Longrightarrow> \<not> win xs n"
  unfolding win_def
proof
  assume v: "visible (xs ! n)" and "\<exists>j\<ge>n. j < length xs \<and> (\<exists>sc. xs ! j = INVL1 sc) \<and> (\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m))"
  then obtain j sc where j: "n \<le> j" "xs ! j = INVL1 sc" "\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m)" by blast
  show False
  proof (cases "j = n")
    case True
    then show False using v j(2) by simp
  next
    case False
    then show False using j(1,3) v visible_quiet by force
  qed
qed

lemma win_Suc: "win xs (Suc n) \<Longrightarrow> quiet (xs ! n) \<Longrightarrow> win xs n"
  unfolding win_def
proof -
  assume "\<exists>j\<ge>Suc n. j < length xs \<and> (\<exists>sc. xs ! j = INVL1 sc) \<and> (\<forall>m. Suc n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m))"
    and q: "quiet (xs ! n)"
  then obtain j where j: "Suc n \<le> j" "j < length xs" "\<exists>sc. xs ! j = INVL1 sc" "\<forall>m. Suc n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m)"
    by blast
  have "\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m)" using j(4) q by (metis le_antisym not_less_eq_eq)
  then show "\<exists>j\<ge>n. j < length xs \<and> (\<exists>sc. xs ! j = INVL1 sc) \<and> (\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m))"
    using j(1-3) by (intro exI[of _ j]) auto
qed

lemma win_Suc': "win xs n \<Longrightarrow> \<forall>sc. xs ! n \<noteq> INVL1 sc \<Longrightarrow> win xs (Suc n)"
proof -
  assume w: "win xs n" and ni: "\<forall>sc. xs ! n \<noteq> INVL1 sc"
  then obtain j sc where j: "n \<le> j" "j < length xs" "xs ! j = INVL1 sc" "\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m)"
    unfolding win_def by blast
  have "j \<noteq> n" using j(3) ni by blast
  then have "Suc n \<le> j" using j(1) by simp
  then show ?thesis unfolding win_def using j(2-4) by (intro exI[of _ j]) auto
qed

subsection \<open>What an all-devices acquire learns is fresh in its device's L2\<close>

text \<open>An L2 line fetched from memory is no older than any write in memory;
  but a line fetched before another device's release put its writes there
  is older than what an acquire of that release learns. hrf's all-devices
  load invalidates its device's L2 right after its access (LD; INVL2 DV;
  INVL1 WG), as a device-scope load does its L1 ([RSP15] sec. 6).\<close>

subsubsection \<open>Code after an all-devices read\<close>

text \<open>Position n of a code comes before an invalidation of the L2, with only
  quiet instructions between, none an invalidation of the L1, and that
  before one of the L1.\<close>
definition win2 :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "win2 xs n \<longleftrightarrow> (\<exists>j < length xs. n \<le> j \<and> (\<exists>sc. xs ! j = INVL2 sc)
     \<and> (\<forall>m < j. n \<le> m \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)) \<and> win xs j)"

text \<open>Position n of a code comes after a visible instruction, with only quiet
  instructions between, none an invalidation of the L2.\<close>
definition since2 :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "since2 xs n \<longleftrightarrow> (\<exists>p < n. visible (xs ! p) \<and> (\<forall>m. p < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL2 sc)))"

lemma since2_Suc: "since2 xs n \<Longrightarrow> quiet (xs ! n) \<Longrightarrow> \<forall>sc. xs ! n \<noteq> INVL2 sc \<Longrightarrow> since2 xs (Suc n)"
proof -
  assume a: "since2 xs n" "quiet (xs ! n)" "\<forall>sc. xs ! n \<noteq> INVL2 sc"
  then obtain p where p: "p < n" "visible (xs ! p)" "\<forall>m. p < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL2 sc)"
    unfolding since2_def by blast
  have "\<forall>m. p < m \<and> m < Suc n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL2 sc)"
    using p(3) a(2,3) less_Suc_eq by auto
  then show ?thesis unfolding since2_def using p(1,2) by (intro exI[of _ p]) auto
qed

lemma since2_vis: "visible (xs ! n) \<Longrightarrow> since2 xs (Suc n)"
  unfolding since2_def by (intro exI[of _ n]) auto

lemma win_iff: "win xs n \<longleftrightarrow> (\<exists>j < length xs. n \<le> j \<and> (\<exists>sc. xs ! j = INVL1 sc) \<and> (\<forall>m < j. n \<le> m \<longrightarrow> quiet (xs ! m)))"
  unfolding win_def by blast

lemma win2_shift: "win2 ys n \<Longrightarrow> win2 (xs @ ys @ zs) (length xs + n)"
proof -
  assume "win2 ys n"
  then obtain j sc where j: "j < length ys" "n \<le> j" "ys ! j = INVL2 sc"
      "\<forall>m < j. n \<le> m \<longrightarrow> quiet (ys ! m) \<and> (\<forall>sc. ys ! m \<noteq> INVL1 sc)" "win ys j"
    unfolding win2_def by blast
  have "\<forall>m < length xs + j. length xs + n \<le> m \<longrightarrow> quiet ((xs @ ys @ zs) ! m) \<and> (\<forall>sc. (xs @ ys @ zs) ! m \<noteq> INVL1 sc)"
  proof (intro allI impI)
    fix m assume m: "m < length xs + j" "length xs + n \<le> m"
    then have "m - length xs < length ys" "\<not> m < length xs" using j(1) by linarith+
    then have "(xs @ ys @ zs) ! m = ys ! (m - length xs)" by (simp add: nth_append)
    moreover have "n \<le> m - length xs \<and> m - length xs < j" using m by linarith
    ultimately show "quiet ((xs @ ys @ zs) ! m) \<and> (\<forall>sc. (xs @ ys @ zs) ! m \<noteq> INVL1 sc)" using j(4) by simp
  qed
  moreover have "(xs @ ys @ zs) ! (length xs + j) = INVL2 sc" using j(1,3) by (simp add: nth_append)
  moreover have "win (xs @ ys @ zs) (length xs + j)" using win_shift[OF j(5)] .
  ultimately show ?thesis unfolding win2_def using j(1,2) by (intro exI[of _ "length xs + j"]) auto
qed

lemma visible_no_win2: "n < length xs \<Longrightarrow> visible (xs ! n) \<Longrightarrow> \<not> win2 xs n"
proof
  assume v: "visible (xs ! n)" and "win2 xs n"
  then obtain j sc where j: "n \<le> j" "xs ! j = INVL2 sc" "\<forall>m < j. n \<le> m \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)"
    unfolding win2_def by blast
  show False
  proof (cases "j = n")
    case True
    then show False using v j(2) by simp
  next
    case False
    then show False using j(1,3) v visible_quiet by force
  qed
qed

lemma win2_Suc': "win2 xs n \<Longrightarrow> \<forall>sc. xs ! n \<noteq> INVL2 sc \<Longrightarrow> win2 xs (Suc n)"
proof -
  assume w: "win2 xs n" and ni: "\<forall>sc. xs ! n \<noteq> INVL2 sc"
  then obtain j sc where j: "j < length xs" "n \<le> j" "xs ! j = INVL2 sc"
      "\<forall>m < j. n \<le> m \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)" "win xs j"
    unfolding win2_def by blast
  have "j \<noteq> n" using j(3) ni by blast
  then have "Suc n \<le> j" using j(2) by simp
  then show ?thesis unfolding win2_def using j(1,3-5) by (intro exI[of _ j]) auto
qed

text \<open>The operations that read at all-devices scope.\<close>
fun sys_rd_op :: "src_op \<Rightarrow> bool" where
  "sys_rd_op (Load sc rm) = (sc = AllDevices)"
| "sys_rd_op (FetchInc sc rm) = (sc = AllDevices)"
| "sys_rd_op (Store sc rm) = False"

text \<open>A row whose visible instruction is followed by an invalidation of the
  L2 and then one of the L1, with only quiet instructions between.\<close>
definition inv2_after :: "row \<Rightarrow> bool" where
  "inv2_after rw \<longleftrightarrow> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> win2 (rw r x) (Suc m))"

definition acq2_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "acq2_rows S A \<longleftrightarrow> (\<forall>a \<in> A. sys_rd_op a \<longrightarrow> (\<exists>rw. S a = Some rw \<and> inv2_after rw))"

lemmas acq2_simps = acq2_rows_def inv2_after_def win2_def win_iff numeral_eq_Suc All_less_Suc Ex_less_Suc

lemma compiled_win2:
  assumes rows: "l1_rows S A" "l2_rows S B" "acq2_rows S (A \<union> B)" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x" "sys_rd_op a"
  shows "win2 (concat (map (compile_instr S) c)) (Suc n)"
proof -
  obtain rw pre post m where rw: "a \<in> A \<union> B" "S a = Some rw" "concat (map (compile_instr S) c) = pre @ rw r x @ post"
      "n = length pre + m" "m < length (rw r x)" "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "inv2_after rw" using rows(3) w(2) rw(1,2) by (auto simp: acq2_rows_def)
  then have "win2 (rw r x) (Suc m)" using rw(5,6) by (simp add: inv2_after_def)
  then show ?thesis using win2_shift[of "rw r x" "Suc m" pre post] rw(3,4) by simp
qed

subsubsection \<open>The invariant\<close>

text \<open>An all-devices read waiting for its invalidation of the L2: what it
  learnt from another device may be newer than its device's L2 lines.\<close>
definition exempt2 :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> sev \<Rightarrow> bool" where
  "exempt2 S P s c \<longleftrightarrow> (\<exists>t k. c = Acc t k False \<and> is_rd P c \<and> sys_ev P c \<and> Suc k = kd S P s t
     \<and> win2 (instrs (compile S P) t) (pc s t) \<and> since2 (instrs (compile S P) t) (pc s t))"

text \<open>What a performed access knows of another device is settled before its
  device's readable L2 lines, but while the access is exempt.\<close>
definition kl2_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "kl2_ok L S P s g \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>c a x. done_ev S P s c \<and> sthread c = Some t \<and> knows_at L P g c a
     \<and> wx S P s x a \<and> dv L a \<noteq> Some (dev_of L (wg_of L t)) \<and> readable (l2 s (dev_of L (wg_of L t)) x)
     \<and> \<not> exempt2 S P s c \<longrightarrow> sb L g a (h2 g (dev_of L (wg_of L t)) x))"

lemma kl2_okD:
  assumes "kl2_ok L S P s g" "t \<in> src_threads P" "done_ev S P s c" "sthread c = Some t" "knows_at L P g c a"
    "wx S P s x a" "dv L a \<noteq> Some (dev_of L (wg_of L t))" "readable (l2 s (dev_of L (wg_of L t)) x)"
    "\<not> exempt2 S P s c"
  shows "sb L g a (h2 g (dev_of L (wg_of L t)) x)"
  using assms unfolding kl2_ok_def by blast

lemma kl2_ok_initial: "kl2_ok L S P (initial (src_init P)) (ghost0 P)"
  by (simp add: kl2_ok_def initial_fields readable_def)

text \<open>A write of another device a thread knows is in memory (kh_ok).\<close>
lemma known_other_mem:
  assumes kh: "kh_ok L S P s g" and t: "t \<in> src_threads P" and c: "done_ev S P s c" "sthread c = Some t"
    "knows_at L P g c a" and wa: "wx S P s x a" and na: "dv L a \<noteq> Some (dev_of L (wg_of L t))"
  shows "ga3 g a \<noteq> None"
  using kh t wa knows_at_knows[OF c] na unfolding kh_ok_def by blast

subsubsection \<open>Environment steps keep it\<close>

lemma kl2_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and le: "l2_env L s s' g g'"
    and inv: "ginv L S P s g" and kh: "kh_ok L S P s g" and kl2: "kl2_ok L S P s g"
  shows "kl2_ok L S P s' g'"
  unfolding kl2_ok_def
proof (intro ballI allI impI)
  fix t c a x
  assume t: "t \<in> src_threads P" and a: "done_ev S P s' c \<and> sthread c = Some t \<and> knows_at L P g' c a
     \<and> wx S P s' x a \<and> dv L a \<noteq> Some (dev_of L (wg_of L t)) \<and> readable (l2 s' (dev_of L (wg_of L t)) x)
     \<and> \<not> exempt2 S P s' c"
  let ?d = "dev_of L (wg_of L t)"
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have ka: "knows_at L P g' = knows_at L P g" unfolding knows_at_def[abs_def] hbm_def swm_def ob_def[abs_def] gr ..
  have ex: "exempt2 S P s' = exempt2 S P s" unfolding exempt2_def[abs_def] kd_same[OF pc] pc ..
  have li: "lines_inv S P s g" using inv by (simp add: ginv_def)
  have dc: "done_ev S P s c" using a done_same[OF pc] by simp
  have kc: "knows_at L P g c a" using a ka by simp
  have wa: "wx S P s x a" using a wx_same[OF pc] by simp
  have a3: "ga3 g a \<noteq> None" using known_other_mem[OF kh t dc _ kc wa] a by blast
  have r2: "readable (l2 s' ?d x)" using a by blast
  from le[unfolded l2_env_def, rule_format, OF r2]
  consider (same) "readable (l2 s ?d x)" "h2 g' ?d x = h2 g ?d x" | (mem) "h2 g' ?d x = hm g x"
    | (new) "ga3 g' (h2 g' ?d x) = None"
    by (elim disjE conjE) (rule that; assumption)+
  then show "sb L g' a (h2 g' ?d x)"
  proof cases
    case same
    have na: "dv L a \<noteq> Some ?d" using a by blast
    have ne: "\<not> exempt2 S P s c" using a ex by simp
    have "sb L g a (h2 g ?d x)" using kl2_okD[OF kl2 t dc _ kc wa na same(1) ne] a by blast
    moreover have "wx S P s x (h2 g ?d x)" using h2_wx[OF li same(1)] .
    ultimately show ?thesis using k wa same(2) unfolding sb_keep_def by metis
  next
    case mem
    have hm: "wx S P s x (hm g x)" "ga3 g (hm g x) \<noteq> None"
      "\<forall>e. wx S P s x e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g x \<or> klt (key g e) (key g (hm g x))"
      using li by (simp_all add: lines_inv_def)
    have "sb L g a (hm g x)" using hm(3) wa a3 unfolding sb_def by blast
    then show ?thesis using k wa hm(1) mem unfolding sb_keep_def by metis
  next
    case new
    have "ga3 g' a \<noteq> None" using m a3 by (simp add: env_mono_def)
    then show ?thesis using new by (simp add: sb_def)
  qed
qed

subsubsection \<open>Thread steps keep it\<close>

lemma readable_invalidate [simp]: "readable (invalidate e) = False"
  by (cases e) (auto simp: invalidate_def readable_def split: prod.splits)

lemma dev_in_scope: "d \<in> devs L \<Longrightarrow> d \<in> devs_in L sc d"
  by (cases sc) (auto simp: devs_in_def)

text \<open>What a thread step does to the L2 lines: a readable line was readable
  before with its write (and outside the scope of an invalidation of the L2
  the step performs), or holds the write an increment at the L2 performs.\<close>
lemma step_l2:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and dd: "dev_of L (wg_of L t) \<in> devs L" and r: "readable (l2 s' d y)"
  shows "(readable (l2 s d y) \<and> h2 g' d y = h2 g d y
        \<and> (\<forall>sc. instrs (compile S P) t ! pc s t = INVL2 sc \<longrightarrow> d \<noteq> dev_of L (wg_of L t)))
     \<or> (d = dev_of L (wg_of L t) \<and> (\<exists>r. instrs (compile S P) t ! pc s t = INCL2 r y)
        \<and> h2 g' d y = Acc t (kd S P s t) True)"
proof -
  let ?i = "instrs (compile S P) t ! pc s t"
  obtain z where z: "exec L t ?i s = Some z" "s' = set_pc t (Suc (pc s t)) z"
    by (rule step_shape[OF st rows]) blast
  have l2z: "l2 s' = l2 z" using z(2) by (simp add: set_pc_def)
  have hv: "h2 g' = (case ?i of INCL2 r x \<Rightarrow> (h2 g)(dev_of L (wg_of L t) := (h2 g (dev_of L (wg_of L t)))(x := Acc t (kd S P s t) True))
       | _ \<Rightarrow> h2 g)"
    using gv by (simp add: gview_def)
  have ind: "dev_of L (wg_of L t) \<in> devs_in L sc (dev_of L (wg_of L t))" for sc using dev_in_scope[OF dd] .
  show ?thesis
  proof (cases ?i)
    case (ST v x)
    then show ?thesis using z(1) r hv unfolding l2z
      by (auto simp: Let_def set_l1_def enq_l1_def split: if_splits)
  next
    case (INCL1 r0 x)
    then show ?thesis using z(1) r hv unfolding l2z
      by (auto simp: Let_def set_l1_def enq_l1_def set_reg_def split: if_splits)
  next
    case (INVL2 sc)
    then show ?thesis using z(1) r hv ind unfolding l2z by (auto split: if_splits)
  next
    case (LD r0 x)
    then show ?thesis using z(1) r hv unfolding l2z by (auto simp: Let_def set_reg_def split: if_splits)
  next
    case (INCL2 r0 x)
    then show ?thesis using z(1) r hv unfolding l2z
      by (cases "d = dev_of L (wg_of L t) \<and> y = x")
        (auto simp: Let_def set_reg_def set_l2_def enq_l2_def split: if_splits)
  next
    case (LKrmw sc)
    then show ?thesis using z(1) r hv unfolding l2z by (auto split: if_splits)
  next
    case (UNLKrmw sc)
    then show ?thesis using z(1) r hv unfolding l2z by (auto split: if_splits)
  next
    case (LK x)
    then show ?thesis using z(1) r hv unfolding l2z by (auto simp: Let_def split: if_splits)
  next
    case (UNLK x)
    then show ?thesis using z(1) r hv unfolding l2z by (auto simp: Let_def split: if_splits)
  qed (use z(1) r hv l2z in \<open>auto simp: set_reg_def\<close>)
qed

text \<open>The write an increment at the L2 puts in its line has not reached
  memory.\<close>
lemma new_l2_line:
  assumes gi: "ginv L S P s' g'" and gs: "gstep P (done_ev S P s) (done_ev S P s') i g g'"
    and r: "readable (l2 s' d y)" and e: "h2 g' d y = Acc t (kd S P s t) p"
  shows "ga3 g' (h2 g' d y) = None"
proof -
  have "wx S P s' y (h2 g' d y)" using h2_wx[OF _ r] gi by (simp add: ginv_def)
  then have "is_wr P (h2 g' d y)" "done_ev S P s' (h2 g' d y)" using e by (simp_all add: wx_def)
  moreover have "\<not> done_ev S P s (h2 g' d y)" using e by simp
  ultimately show ?thesis using gs unfolding gstep_def by auto
qed

text \<open>What an access performed before the step knows, and is not exempt,
  stays settled before its device's L2 lines.\<close>
lemma kl2_old:
  assumes inv: "ginv L S P s g" and gi: "ginv L S P s' g'"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and dd: "dev_of L (wg_of L t) \<in> devs L" and kh: "kh_ok L S P s g" and kl2: "kl2_ok L S P s g"
    and u: "u \<in> src_threads P" and c: "done_ev S P s c" "sthread c = Some u" "knows_at L P g c a"
    and ne: "\<not> exempt2 S P s c" and y: "sloc P a = Some y" and na: "dv L a \<noteq> Some (dev_of L (wg_of L u))"
    and r: "readable (l2 s' (dev_of L (wg_of L u)) y)"
  shows "sb L g' a (h2 g' (dev_of L (wg_of L u)) y)"
proof -
  let ?d = "dev_of L (wg_of L u)"
  have ei: "ev_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have wa: "wx S P s y a" using knows_at_wx[OF ei c(1,3) y] .
  have a3: "ga3 g a \<noteq> None" using known_other_mem[OF kh u c wa na] .
  have so: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using gs that by (simp add: gstep_def)
  have ao: "gt g' a = gt g a" "ga2 g' a = ga2 g a" "ga3 g' a = ga3 g a" using so[OF wx_done[OF wa]] by simp_all
  from step_l2[OF st rows gv dd r] show ?thesis
  proof
    assume l: "readable (l2 s ?d y) \<and> h2 g' ?d y = h2 g ?d y
      \<and> (\<forall>sc. instrs (compile S P) t ! pc s t = INVL2 sc \<longrightarrow> ?d \<noteq> dev_of L (wg_of L t))"
    have "sb L g a (h2 g ?d y)" using kl2_okD[OF kl2 u c(1,2,3) wa na _ ne] l by blast
    moreover have "done_ev S P s (h2 g ?d y)" using wx_done[OF h2_wx[OF li]] l by blast
    ultimately show ?thesis using sb_cong[of g' a g "h2 g ?d y"] ao so l by simp
  next
    assume l: "?d = dev_of L (wg_of L t) \<and> (\<exists>r. instrs (compile S P) t ! pc s t = INCL2 r y)
      \<and> h2 g' ?d y = Acc t (kd S P s t) True"
    have "ga3 g' (h2 g' ?d y) = None" using new_l2_line[OF gi gs r] l by blast
    then show ?thesis using a3 ao by (simp add: sb_def)
  qed
qed

text \<open>An access performed before the step that is not exempt after it was
  not before, where its device's line is readable.\<close>
lemma exempt2_step:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and dd: "dev_of L (wg_of L t) \<in> devs L" and c: "sthread c = Some u"
    and ne: "\<not> exempt2 S P s' c" and r: "readable (l2 s' (dev_of L (wg_of L u)) y)"
  shows "\<not> exempt2 S P s c"
proof
  assume ex: "exempt2 S P s c"
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t"
  obtain z where z: "?n < length ?xs" "exec L t (?xs ! ?n) s = Some z" "visible (?xs ! ?n) \<or> quiet (?xs ! ?n)"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s"
      "kd S P s' t = (if visible (?xs ! ?n) then Suc (kd S P s t) else kd S P s t)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(4,5) by (simp add: set_pc_def)
  obtain k where cp: "c = Acc u k False" "is_rd P c" "Suc k = kd S P s u" "win2 (instrs (compile S P) u) (pc s u)"
      "sys_ev P c" "since2 (instrs (compile S P) u) (pc s u)"
    using ex c unfolding exempt2_def by auto
  show False
  proof (cases "u = t")
    case False
    then have "exempt2 S P s' c" unfolding exempt2_def using cp z(7) pc' by auto
    then show False using ne by blast
  next
    case True
    show False
    proof (cases "visible (?xs ! ?n)")
      case True
      then show False using visible_no_win2[OF z(1)] cp(4) \<open>u = t\<close> by simp
    next
      case nv: False
      show False
      proof (cases "\<exists>sc. ?xs ! ?n = INVL2 sc")
        case True
        then show False using step_l2[OF st rows gv dd r] \<open>u = t\<close> by auto
      next
        case False
        then have "win2 ?xs (Suc ?n)" using win2_Suc' cp(4) \<open>u = t\<close> by blast
        moreover have "since2 ?xs (Suc ?n)" using since2_Suc[OF _ _ False[simplified]] cp(6) nv z(3) \<open>u = t\<close> by auto
        ultimately have "exempt2 S P s' c" unfolding exempt2_def using cp z(6) nv pc' \<open>u = t\<close> by auto
        then show False using ne by blast
      qed
    qed
  qed
qed

lemma kl2_thread:
  assumes inv: "ginv L S P s g" and wr: "wr_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "acq2_rows S (A \<union> B)"
      "\<forall>a \<in> A \<union> B. \<forall>rm. a \<noteq> FetchInc AllDevices rm"
    and wp: "well_placed L P" and gi: "ginv L S P s' g'"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and kh: "kh_ok L S P s g" and kl2: "kl2_ok L S P s g"
  shows "kl2_ok L S P s' g'"
  unfolding kl2_ok_def
proof (intro ballI allI impI)
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t" and ?w0 = "wg_of L t"
  let ?i = "?xs ! ?n" and ?d0 = "dev_of L (wg_of L t)"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
  have ho: "home_ok L s g" and lo: "l12_ok L s g" using wr_okD(8,9)[OF wr] .
  have dd: "?d0 \<in> devs L" using wp t by (simp add: well_placed_def)
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have new: "\<And>e. done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e \<Longrightarrow> sthread e = Some t" using se(1) by fastforce
  have so: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using se(4)[OF that] .
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(5,6) by (simp add: set_pc_def)
  have kdef: "length (filter visible (take ?n ?xs)) = ?k" by (simp add: kd_def)
  have xsc: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
  note old = kl2_old[OF inv gi st rows(1-3) gs gv dd kh kl2]
  fix u c a y
  assume u: "u \<in> src_threads P" and A: "done_ev S P s' c \<and> sthread c = Some u \<and> knows_at L P g' c a
    \<and> wx S P s' y a \<and> dv L a \<noteq> Some (dev_of L (wg_of L u)) \<and> readable (l2 s' (dev_of L (wg_of L u)) y)
    \<and> \<not> exempt2 S P s' c"
  have ya: "sloc P a = Some y" using A wx_loc by blast
  show "sb L g' a (h2 g' (dev_of L (wg_of L u)) y)"
  proof (cases "done_ev S P s c")
    case True
    have kc: "knows_at L P g c a" using knows_at_keep[OF ei gr True] A by simp
    have ne: "\<not> exempt2 S P s c" using exempt2_step[OF st rows(1-3) gv dd] A by blast
    show ?thesis using old[OF u True _ kc ne ya] A by blast
  next
    case False
    obtain p where cp: "c = Acc t ?k p" and vi: "visible ?i" using se(1) A False by blast
    have ut: "u = t" using A cp by simp
    have na: "dv L a \<noteq> Some ?d0" using A ut by simp
    have r2: "readable (l2 s' ?d0 y)" using A ut by simp
    have nw: "\<not> win2 ?xs ?n" using visible_no_win2[OF z(1) vi] .
    have oldc: ?thesis if "done_ev S P s c0" "sthread c0 = Some t" "knows_at L P g c0 a" for c0
    proof -
      have "\<not> exempt2 S P s c0" using nw that(2) unfolding exempt2_def by auto
      then show ?thesis using old[OF t that _ ya na r2] ut by simp
    qed
    have ownc: ?thesis if ta: "sthread a = Some t"
    proof -
      obtain j q where "a = Acc t j q" using ta by (cases a) auto
      then show ?thesis using na by (simp add: dv_def)
    qed
    have rdc: ?thesis if rd: "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "a = grf g' r" for r
    proof -
      obtain p' where "r = Acc t ?k p'" using se(1)[OF rd(2,3)] by blast
      then have rk: "r = Acc t ?k False" using rd(1) by (cases p') (auto dest: rd_part)
      have hr: "done_ev S P s (grf g' r)" using step_read_home[OF inv wr t st rows(1-3) gs gv rd(1-3)] by blast
      have sr: "sloc P a = sloc P r" using ev_parts(2)[OF ei'] rd by simp
      obtain y0 r0 where y0: "sloc P r = Some y0"
          "((?i = LD r0 y0 \<or> ?i = INCL1 r0 y0) \<and> grf g' r = h1 g ?w0 y0 \<and> readable (l1 s ?w0 y0))
           \<or> (?i = INCL2 r0 y0 \<and> grf g' r = h2 g ?d0 y0 \<and> readable (l2 s ?d0 y0))"
        using se(6) rd(1,2) rk by blast
      have yy: "y0 = y" using y0(1) sr ya by simp
      have wa: "wx S P s y a" using hr rd(4) ya ev_parts(2)[OF ei'] rd(1,2) by (simp add: wx_def)
      have ao: "gt g' a = gt g a" "ga2 g' a = ga2 g a" "ga3 g' a = ga3 g a" using so[OF wx_done[OF wa]] by simp_all
      from y0(2) show ?thesis
      proof
        assume l: "(?i = LD r0 y0 \<or> ?i = INCL1 r0 y0) \<and> grf g' r = h1 g ?w0 y0 \<and> readable (l1 s ?w0 y0)"
        have l2: "readable (l2 s ?d0 y) \<and> h2 g' ?d0 y = h2 g ?d0 y" using step_l2[OF st rows(1-3) gv dd r2] l by auto
        have ah: "a = h1 g ?w0 y" using l rd(4) yy by simp
        have r1: "readable (l1 s ?w0 y)" using l yy by simp
        have a2: "ga2 g a \<noteq> None"
        proof
          assume "ga2 g a = None"
          then have "ewg L a = Some ?w0" using home_okD(1)[OF ho r1] ah by simp
          then show False using na by (simp add: dv_def)
        qed
        have "sb L g (h1 g ?w0 y) (h2 g ?d0 y)" by (rule l12_okD[OF lo r1]) (use a2 ah l2 in auto)
        then have "sb L g a (h2 g ?d0 y)" using ah by simp
        moreover have "done_ev S P s (h2 g ?d0 y)" using wx_done[OF h2_wx[OF li]] l2 by blast
        ultimately show ?thesis using sb_cong[of g' a g "h2 g ?d0 y"] ao so l2 ut by simp
      next
        assume l: "?i = INCL2 r0 y0 \<and> grf g' r = h2 g ?d0 y0 \<and> readable (l2 s ?d0 y0)"
        have a3: "ga3 g a \<noteq> None"
        proof
          assume "ga3 g a = None"
          then have "dv L a = Some ?d0" using home_okD(4)[OF ho] l rd(4) yy by simp
          then show False using na by simp
        qed
        have "h2 g' ?d0 y = Acc t ?k True" using gv l yy by (simp add: gview_def)
        then have "ga3 g' (h2 g' ?d0 y) = None" using new_l2_line[OF gi gs r2] by blast
        then show ?thesis using a3 ao ut by (simp add: sb_def)
      qed
    qed
    have kn': "knows L S P s' g' t a" using knows_at_knows A ut by blast
    from knows_step[OF ei ei' gr new kn'] consider
        (old) "knows L S P s g t a" | (own) "sthread a = Some t"
      | (rd) r where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "a = grf g' r"
      | (sy) r b where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "is_wr P b \<or> is_rd P b"
          "(b, grf g' r) \<in> hbm L P g" "ob P g b = a" "(grf g' r, r) \<in> swm L P g'"
      by blast
    then show ?thesis
    proof cases
      case old
      then consider "sthread a = Some t" | b c0 where "is_wr P b \<or> is_rd P b" "done_ev S P s c0"
          "sthread c0 = Some t" "b = c0 \<or> (b, c0) \<in> hbm L P g" "ob P g b = a"
        unfolding knows_def by blast
      then show ?thesis
      proof cases
        case 1
        then show ?thesis using ownc by blast
      next
        case (2 b c0)
        then have "knows_at L P g c0 a" unfolding knows_at_def by blast
        then show ?thesis using oldc 2 by blast
      qed
    next
      case own
      then show ?thesis using ownc by blast
    next
      case (rd r)
      then show ?thesis using rdc by blast
    next
      case (sy r b)
      obtain p' where "r = Acc t ?k p'" using se(1)[OF sy(2,3)] by blast
      then have rk: "r = Acc t ?k False" using sy(1) by (cases p') (auto dest: rd_part)
      define w' where "w' = grf g' r"
      have hr: "done_ev S P s w'" using step_read_home[OF inv wr t st rows(1-3) gs gv sy(1-3)] w'_def by blast
      have wr': "is_wr P w'" "sloc P w' = sloc P r" using ev_parts(2)[OF ei'] sy(1,2) w'_def by simp_all
      obtain u' j q where uw: "w' = Acc u' j q" using sy(7) w'_def by (cases "grf g' r") (auto simp: swm_def atomic_ev_def)
      have u': "u' \<in> src_threads P" using wr'(1) uw by (simp add: acc_def)
      have kw': "knows_at L P g w' a" unfolding knows_at_def using sy(4,5,6) w'_def by blast
      have tw: "sthread w' = Some u'" using uw by simp
      show ?thesis
      proof (cases "sys_ev P r")
        case True
        \<comment> \<open>an all-devices read: exempt until its invalidation of the L2\<close>
        obtain a0 r0 x0 where o: "src_code P t ! ?k = Op a0 r0 x0"
          using sy(1) rk by (cases "src_code P t ! ?k") (auto simp: acc_def ins_def)
        have sr: "sys_rd_op a0" using True sy(1) rk o by (cases a0) (auto simp: sys_ev_def ins_def acc_def)
        have "?n < length (concat (map (compile_instr S) (src_code P t)))" using z(1) xsc by simp
        moreover have "visible (concat (map (compile_instr S) (src_code P t)) ! ?n)" using vi xsc by simp
        moreover have "length (filter visible (take ?n (concat (map (compile_instr S) (src_code P t))))) = ?k"
          using kdef xsc by simp
        ultimately have w2: "win2 ?xs (Suc ?n)" using compiled_win2[OF rows(1,2,4) ops _ _ _ o sr] xsc by simp
        show ?thesis
        proof (cases p)
          case False
          then have "exempt2 S P s' c" unfolding exempt2_def using cp rk sy(1) z(7) vi pc' w2 since2_vis[OF vi] True by auto
          then show ?thesis using A by blast
        next
          case True
          \<comment> \<open>the write of an RMW at all-devices scope: rows have none\<close>
          have "is_wr P c \<or> is_rd P c" using knows_at_acc A by blast
          then have "wr (ins P t ?k) True" using cp True by (auto dest: rd_part)
          then obtain sc1 rm1 where f0: "a0 = FetchInc sc1 rm1" using o by (cases a0) (auto simp: ins_def)
          then have f: "a0 = FetchInc AllDevices rm1" using sr by simp
          have "src_code P t ! ?k \<in> set (src_code P t)" using se(2)[OF vi] by simp
          then have "a0 \<in> A \<union> B" using ops o by (auto simp: op_of_def)
          then show ?thesis using rows(5) f by blast
        qed
      next
        case ns: False
        \<comment> \<open>synchronisation on one device\<close>
        have "map_option (dev_of L) (ewg L w') = map_option (dev_of L) (ewg L r)"
          using sy(7) ns w'_def by (auto simp: swm_def)
        then have dvu: "dev_of L (wg_of L u') = ?d0" using uw rk by simp
        have nx: "\<not> exempt2 S P s w'" using wr'(1) rd_not_wr unfolding exempt2_def by blast
        have "dv L a \<noteq> Some (dev_of L (wg_of L u'))" using na dvu by simp
        moreover have "readable (l2 s' (dev_of L (wg_of L u')) y)" using r2 dvu by simp
        ultimately show ?thesis using old[OF u' hr tw kw' nx ya] dvu ut by simp
      qed
    qed
  qed
qed

lemma win2_win: "win2 xs n \<Longrightarrow> win xs n"
proof -
  assume "win2 xs n"
  then obtain j where j: "n \<le> j" "\<forall>m < j. n \<le> m \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)" "win xs j"
    unfolding win2_def by blast
  then obtain j' sc where j': "j \<le> j'" "j' < length xs" "xs ! j' = INVL1 sc" "\<forall>m. j \<le> m \<and> m < j' \<longrightarrow> quiet (xs ! m)"
    unfolding win_def by blast
  have "\<forall>m. n \<le> m \<and> m < j' \<longrightarrow> quiet (xs ! m)"
  proof (intro allI impI)
    fix m assume "n \<le> m \<and> m < j'"
    then show "quiet (xs ! m)" using j(2) j'(4) by (cases "m < j") auto
  qed
  then show ?thesis unfolding win_def using j(1) j'(1-3) by (intro exI[of _ j']) auto
qed

text \<open>So what an access knows of another device, out of the window of
  kl_ok, is settled before its device's L2 lines: while an all-devices read
  waits for its invalidation of the L2, what it learnt across devices is
  exempt from kl_ok too (another device's work-group writes its location,
  with an all-devices store that is not remote).\<close>
lemma known_l2:
  assumes kl2: "kl2_ok L S P s g" and ds: "dev_sys L P" and ei: "ev_inv S P s g"
    and t: "t \<in> src_threads P" and c: "done_ev S P s c" "sthread c = Some t" "knows_at L P g c a"
    and wa: "wx S P s x a" and na: "dv L a \<noteq> Some (dev_of L (wg_of L t))"
    and r: "readable (l2 s (dev_of L (wg_of L t)) x)" and ne: "\<not> exempt L S P s c a"
  shows "sb L g a (h2 g (dev_of L (wg_of L t)) x)"
proof (cases "exempt2 S P s c")
  case False
  then show ?thesis using kl2_okD[OF kl2 t c wa na r] by blast
next
  case True
  then obtain k where ck: "c = Acc t k False" "is_rd P c" "Suc k = kd S P s t" "win2 (instrs (compile S P) t) (pc s t)"
    using c(2) unfolding exempt2_def by auto
  have wi: "win (instrs (compile S P) t) (pc s t)" using win2_win ck(4) .
  have ex: False if "sloc P a = sloc P c \<or> fw L P (wg_of L t) (sloc P c)"
    using ne ck(1,3) wi that unfolding exempt_def by blast
  obtain b where b: "is_wr P b \<or> is_rd P b" "b = c \<or> (b, c) \<in> hbm L P g" "ob P g b = a"
    using c(3) unfolding knows_at_def by blast
  from b(2) show ?thesis
  proof
    assume "b = c"
    then have "a = grf g c" using b(3) ck(2) by (simp add: ob_def)
    then have "sloc P a = sloc P c" using ev_parts(2)[OF ei] ck(2) c(1) by simp
    then show ?thesis using ex by blast
  next
    assume h: "(b, c) \<in> hbm L P g"
    obtain e where e: "b = e \<or> (b, e) \<in> hbm L P g" "(e, c) \<in> src_po P \<union> swm L P g"
      using h unfolding hbm_def by (blast elim: tranclE)
    have ke: "knows_at L P g e a" unfolding knows_at_def using b(1,3) e(1) by blast
    from e(2) show ?thesis
    proof
      assume "(e, c) \<in> src_po P"
      then obtain j q where ej: "e = Acc t j q" "j < k" using ck(1) by (auto simp: src_po_def)
      have "\<not> exempt2 S P s e" using ej ck(3) unfolding exempt2_def by auto
      moreover have "done_ev S P s e" using ej ck(3) by simp
      ultimately show ?thesis using kl2_okD[OF kl2 t _ _ ke wa na r] ej by simp
    next
      assume sw: "(e, c) \<in> swm L P g"
      then have ec: "e = grf g c" "atomic_ev P e" by (auto simp: swm_def)
      have we: "is_wr P e" "sloc P e = sloc P c" "done_ev S P s e" using ev_parts(2)[OF ei] ck(2) c(1) ec(1) by auto
      obtain u j q where ue: "e = Acc u j q" using ec(2) by (cases e) (auto simp: atomic_ev_def)
      have u: "u \<in> src_threads P" using we(1) ue by (simp add: acc_def)
      show ?thesis
      proof (cases "dev_of L (wg_of L u) = dev_of L (wg_of L t)")
        case True
        have "\<not> exempt2 S P s e" using we(1) rd_not_wr unfolding exempt2_def by blast
        then show ?thesis using kl2_okD[OF kl2 u we(3) _ ke wa _ ] True na r ue by simp
      next
        case False
        \<comment> \<open>across devices: a store of another work-group, not remote (dev_sys)\<close>
        have "dv L e \<noteq> dv L c" using False ue ck(1) by (simp add: dv_def)
        then have "\<not> remote_ev P e" using ds[unfolded dev_sys_def, rule_format, of e c] we ck(2) ue ck(1) by simp
        then have "\<not> rstore_ev P e" using rstore_remote by blast
        moreover have "ewg L e \<noteq> Some (wg_of L t)" using False ue by auto
        ultimately have "fw L P (wg_of L t) (sloc P c)" unfolding fw_def using we ue by (intro exI[of _ e]) simp
        then show ?thesis using ex by blast
      qed
    qed
  qed
qed

text \<open>No access is exempt where its thread is about to invalidate an L1: an
  all-devices read's row invalidates its L2 before any L1 (acq2_rows).\<close>
lemma invl1_not_exempt2:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "acq2_rows S (A \<union> B)"
    and t: "t \<in> src_threads P" and n: "pc s t < length (instrs (compile S P) t)"
    and i: "instrs (compile S P) t ! pc s t = INVL1 sc" and c: "sthread c = Some t"
  shows "\<not> exempt2 S P s c"
proof
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t"
  assume "exempt2 S P s c"
  then obtain k p where ck: "c = Acc t k False" "is_rd P c" "sys_ev P c" "Suc k = kd S P s t"
      "p < ?n" "visible (?xs ! p)" "\<forall>m. p < m \<and> m < ?n \<longrightarrow> quiet (?xs ! m) \<and> (\<forall>sc. ?xs ! m \<noteq> INVL2 sc)"
    using c unfolding exempt2_def since2_def by auto
  have pl: "p < length ?xs" using ck(5) n by simp
  have "\<forall>m. p < m \<and> m < ?n \<longrightarrow> quiet (?xs ! m)" using ck(7) by blast
  then have cnt: "length (filter visible (take p ?xs)) = k"
    using vis_count[OF ck(5) pl ck(6)] ck(4) by (simp add: kd_def)
  obtain a0 r0 x0 where o: "src_code P t ! k = Op a0 r0 x0"
    using ck(1,2) by (cases "src_code P t ! k") (auto simp: acc_def ins_def)
  have sr: "sys_rd_op a0" using ck(1-3) o by (cases a0) (auto simp: sys_ev_def ins_def acc_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
  have xsc: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  have "p < length (concat (map (compile_instr S) (src_code P t)))" using pl xsc by simp
  moreover have "visible (concat (map (compile_instr S) (src_code P t)) ! p)" using ck(6) xsc by simp
  moreover have "length (filter visible (take p (concat (map (compile_instr S) (src_code P t))))) = k"
    using cnt xsc by simp
  ultimately have "win2 ?xs (Suc p)" using compiled_win2[OF rows(1,2,4) ops _ _ _ o sr] xsc by simp
  then obtain j where j: "Suc p \<le> j" "\<exists>sc. ?xs ! j = INVL2 sc"
      "\<forall>m < j. Suc p \<le> m \<longrightarrow> quiet (?xs ! m) \<and> (\<forall>sc. ?xs ! m \<noteq> INVL1 sc)"
    unfolding win2_def by blast
  have "\<not> j < ?n" using ck(7) j(1,2) by auto
  then show False using j(2,3) i ck(5) by (cases "j = ?n") auto
qed

subsection \<open>The L1 lines\<close>

text \<open>The initial writes are settled before every write of their location.\<close>
lemma sb_Init: "time_inv S P s g \<Longrightarrow> wx S P s x h \<Longrightarrow> sb L g (Init x) h"
proof (cases "h = Init x")
  case False
  assume ti: "time_inv S P s g" and h: "wx S P s x h"
  have ni: "\<forall>y. h \<noteq> Init y" using h False by (auto simp: wx_def)
  have i: "ga3 g (Init x) = Some 0" "ga2 g (Init x) = Some 0" "gt g (Init x) = 0" using ti by (simp_all add: time_inv_def)
  have "0 < gt g h" using time_perf[OF ti h ni] by blast
  then show ?thesis using i by (cases "ga3 g h") (auto simp: sb_def key_def klt_def)
qed simp

lemma kl_ok_initial: "kl_ok L S P (initial (src_init P)) (ghost0 P)"
proof -
  have "\<not> done_ev S P (initial (src_init P)) c" if "sthread c = Some t" for c t
    using that by (cases c) auto
  then show ?thesis unfolding kl_ok_def by blast
qed

text \<open>A write of the device (or the initial one) that has reached an L2 is
  settled before the device's readable L2 line of its location.\<close>
lemma sb_l2_line:
  assumes inv: "ginv L S P s g" and l2: "l2_ok L S P s g"
    and hd: "a = Init x \<or> dv L a = Some d"
    and a: "wx S P s x a" "ga2 g a \<noteq> None" and r: "readable (l2 s d x)"
  shows "sb L g a (h2 g d x)"
proof -
  have li: "lines_inv S P s g" and ti: "time_inv S P s g" using inv by (simp_all add: ginv_def)
  have hw: "wx S P s x (h2 g d x)" using h2_wx[OF li r] .
  show ?thesis
  proof (cases "a = Init x")
    case True
    then show ?thesis using sb_Init[OF ti hw] by simp
  next
    case False
    then show ?thesis using l2_okD[OF l2 r a] hd by simp
  qed
qed

lemma racq_op_wide: "racq_op a \<Longrightarrow> wide_rd_op a"
  by (cases a) auto

text \<open>A remote acquire's window is one of waiting for its invalidation
  (rl_rows: no invalidation before its flush; acq_rows: one after it).\<close>
lemma rexempt_exempt:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "acq_rows S A B" "rl_rows S A B"
    and t: "t \<in> src_threads P" and c: "sthread c = Some t" and re: "rexempt L S P s c a"
  shows "exempt L S P s c a"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t"
  obtain k p where ck: "c = Acc t k p" "Suc k = kd S P s t" "racq_ev P c" "fw L P (wg_of L t) (sloc P c)"
      "rwin ?xs ?n (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s w))"
    using re c unfolding rexempt_def by auto
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
  have xsc: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  obtain j f a0 r0 x0 where j: "j < ?n" "j < length ?xs" "visible (?xs ! j)" "\<forall>m. j < m \<and> m < ?n \<longrightarrow> quiet (?xs ! m)"
      "(\<forall>m. j < m \<and> m < ?n \<longrightarrow> \<not> flul1 (?xs ! m))
       \<or> (j < ?n - 1 \<and> flul1 (?xs ! (?n - 1)) \<and> (\<forall>m. j < m \<and> m < ?n - 1 \<longrightarrow> \<not> flul1 (?xs ! m))
          \<and> (\<exists>w. ewg L a = Some w \<and> Flush t \<in> set (l1_fifo s w)))"
      and cnt: "length (filter visible (take j ?xs)) = k"
      and op: "src_code P t ! k = Op a0 r0 x0" "racq_op a0"
      and f: "j < f" "f < length ?xs" "\<exists>sc'. ?xs ! f = FLUL1 sc' \<and> sc' \<noteq> WG"
      "\<forall>m. j < m \<and> m < f \<longrightarrow> quiet (?xs ! m) \<and> \<not> flul1 (?xs ! m) \<and> (\<forall>sc'. ?xs ! m \<noteq> INVL1 sc')"
    by (rule rwin_code[OF rows(1-3,5) t ck(2) ck(3)[unfolded ck(1)] ck(5)])
  have ff: "flul1 (?xs ! f)" using f(3) by auto
  have nf: "?n \<le> Suc f"
  proof (rule ccontr)
    assume "\<not> ?n \<le> Suc f"
    then have "f < ?n - 1" by simp
    then show False using j(5) f(1) ff by auto
  qed
  have wj: "win (concat (map (compile_instr S) (src_code P t))) (Suc j)"
    by (rule compiled_win[OF rows(1,2,4) ops _ _ _ op(1)]) (use j(2,3) cnt xsc racq_op_wide[OF op(2)] in simp_all)
  then obtain i where i: "Suc j \<le> i" "i < length ?xs" "\<exists>sc1. ?xs ! i = INVL1 sc1"
      "\<forall>m. Suc j \<le> m \<and> m < i \<longrightarrow> quiet (?xs ! m)"
    unfolding win_def xsc[symmetric] by blast
  have fi: "f < i"
  proof (rule ccontr)
    assume "\<not> f < i"
    moreover have "i \<noteq> f" using i(3) f(3) by auto
    ultimately have "j < i" "i < f" using i(1) by auto
    then show False using f(4) i(3) by blast
  qed
  have "win ?xs ?n" unfolding win_def using i nf fi j(1) by (intro exI[of _ i]) auto
  then show ?thesis unfolding exempt_def using ck by auto
qed

text \<open>A read after an access of its location in happens-before reads from
  the write that access observes or from one settled after it.\<close>
definition kr_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "kr_ok L S P s g \<longleftrightarrow> (\<forall>r b. is_rd P r \<and> done_ev S P s r \<and> (is_wr P b \<or> is_rd P b) \<and> (b, r) \<in> hbm L P g
     \<and> sloc P b = sloc P r \<longrightarrow> sb L g (ob P g b) (grf g r))"

lemma kr_ok_initial: "kr_ok L S P (initial (src_init P)) (ghost0 P)"
  using hbm_initial by (auto simp: kr_ok_def)

lemma kr_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and ei: "ev_inv S P s g"
    and kr: "kr_ok L S P s g"
  shows "kr_ok L S P s' g'"
  unfolding kr_ok_def
proof (intro allI impI)
  fix r b assume a: "is_rd P r \<and> done_ev S P s' r \<and> (is_wr P b \<or> is_rd P b) \<and> (b, r) \<in> hbm L P g' \<and> sloc P b = sloc P r"
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have h: "hbm L P g' = hbm L P g" unfolding hbm_def swm_def gr ..
  have o: "ob P g' = ob P g" unfolding ob_def[abs_def] gr ..
  have dr: "done_ev S P s r" using a done_same[OF pc] by simp
  have hb: "(b, r) \<in> hbm L P g" using a h by simp
  have db: "done_ev S P s b" using hbm_done[OF ei hb dr] .
  obtain y where y: "sloc P r = Some y" using a ev_parts(2)[OF ei] dr by (metis wr_loc)
  have "sb L g (ob P g b) (grf g r)" using kr a dr hb unfolding kr_ok_def by blast
  moreover have "wx S P s y (ob P g b)" using ob_wx_done[OF ei _ db] a y by simp
  moreover have "wx S P s y (grf g r)" using grf_wx[OF ei _ dr y] a by blast
  ultimately show "sb L g' (ob P g' b) (grf g' r)" using k o gr unfolding sb_keep_def by auto
qed

section \<open>Environment steps keep it\<close>

lemma kl_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and le: "l1_env L s s' g g'"
    and inv: "ginv L S P s g" and kh: "kh_ok L S P s g" and l2: "l2_ok L S P s g" and ds: "dev_sys L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "acq_rows S A B" "rl_rows S A B"
    and kl: "kl_ok L S P s g" and kl2: "kl2_ok L S P s g"
  shows "kl_ok L S P s' g'"
  unfolding kl_ok_def
proof (intro ballI allI impI)
  fix t c a x
  assume t: "t \<in> src_threads P" and a: "done_ev S P s' c \<and> sthread c = Some t \<and> knows_at L P g' c a
     \<and> wx S P s' x a \<and> readable (l1 s' (wg_of L t) x) \<and> \<not> exempt L S P s' c a"
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have ka: "knows_at L P g' = knows_at L P g" unfolding knows_at_def[abs_def] hbm_def swm_def ob_def[abs_def] gr ..
  have ex: "exempt L S P s' = exempt L S P s" unfolding exempt_def[abs_def] kd_same[OF pc] pc ..
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have dc: "done_ev S P s c" using a done_same[OF pc] by simp
  have kc: "knows_at L P g c a" using a ka by simp
  have wa: "wx S P s x a" using a wx_same[OF pc] by simp
  have ne: "\<not> exempt L S P s c a" using a ex by simp
  have kn: "knows L S P s g t a" using knows_at_knows[OF dc _ kc] a by blast
  have nre: "\<not> rexempt L S P s c a" using rexempt_exempt[OF rows t _] a ne by blast
  have home: "(ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
    using kh_at[OF kh t dc _ kc wa nre] a by blast
  let ?w = "wg_of L t"
  from le a consider (same) "readable (l1 s ?w x)" "h1 g' ?w x = h1 g ?w x"
    | (fetch) "\<not> dirty (l1 s ?w x)" "readable (l2 s (dev_of L ?w) x)" "h1 g' ?w x = h2 g (dev_of L ?w) x"
    unfolding l1_env_def by blast
  then show "sb L g' a (h1 g' ?w x)"
  proof cases
    case same
    have "sb L g a (h1 g ?w x)" using kl t dc a kc wa same(1) ne unfolding kl_ok_def by blast
    moreover have "wx S P s x (h1 g ?w x)" using h1_wx[OF li same(1)] .
    ultimately have "sb L g' a (h1 g ?w x)" using k wa unfolding sb_keep_def by blast
    then show ?thesis using same(2) by simp
  next
    case fetch
    have a2: "ga2 g a \<noteq> None"
    proof
      assume n: "ga2 g a = None"
      then have "a \<in> pend1 L S P s g ?w x" using home wa by (simp add: pend1_def)
      then show False using di fetch(1) by (auto simp: dirty_inv_def)
    qed
    have hw: "wx S P s x (h2 g (dev_of L ?w) x)" using h2_wx[OF li fetch(2)] .
    have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
    have "sb L g a (h2 g (dev_of L ?w) x)"
    proof (cases "a = Init x \<or> dv L a = Some (dev_of L ?w)")
      case True
      then show ?thesis using sb_l2_line[OF inv l2 _ wa a2] fetch(2) by blast
    next
      case False
      then show ?thesis using known_l2[OF kl2 ds ei t dc _ kc wa _ fetch(2) ne] a by blast
    qed
    then have "sb L g' a (h2 g (dev_of L ?w) x)" using k wa hw unfolding sb_keep_def by blast
    then show ?thesis using fetch(3) by simp
  qed
qed

section \<open>Thread steps keep it\<close>

text \<open>What a thread step does to the L1 lines: a readable line was readable
  before with its write (and outside the scope of an invalidation the
  step performs), or holds the write a store or an increment in the L1
  performs.\<close>
lemma step_l1:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and ww: "wg_of L t \<in> wgs L" and r: "readable (l1 s' w y)"
  shows "(readable (l1 s w y) \<and> h1 g' w y = h1 g w y
        \<and> (\<forall>sc. instrs (compile S P) t ! pc s t = INVL1 sc \<longrightarrow> w \<noteq> wg_of L t))
     \<or> (w = wg_of L t \<and> ((\<exists>v. instrs (compile S P) t ! pc s t = ST v y) \<or> (\<exists>r. instrs (compile S P) t ! pc s t = INCL1 r y))
        \<and> (\<exists>p. h1 g' w y = Acc t (kd S P s t) p))"
proof -
  let ?i = "instrs (compile S P) t ! pc s t"
  obtain z where z: "exec L t ?i s = Some z" "s' = set_pc t (Suc (pc s t)) z"
    by (rule step_shape[OF st rows]) blast
  have l1z: "l1 s' = l1 z" using z(2) by (simp add: set_pc_def)
  have hv: "h1 g' = (case ?i of ST v x \<Rightarrow> (h1 g)(wg_of L t := (h1 g (wg_of L t))(x := Acc t (kd S P s t) False))
       | INCL1 r x \<Rightarrow> (h1 g)(wg_of L t := (h1 g (wg_of L t))(x := Acc t (kd S P s t) True)) | _ \<Rightarrow> h1 g)"
    using gv by (simp add: gview_def)
  have inw: "wg_of L t \<in> wgs_in L sc (wg_of L t)" for sc using wg_in_scope[OF ww] .
  show ?thesis
  proof (cases ?i)
    case (ST v x)
    then show ?thesis using z(1) r hv unfolding l1z
      by (cases "w = wg_of L t \<and> y = x") (auto simp: Let_def set_l1_def enq_l1_def split: if_splits)
  next
    case (INCL1 r0 x)
    then show ?thesis using z(1) r hv unfolding l1z
      by (cases "w = wg_of L t \<and> y = x")
        (auto simp: Let_def set_l1_def enq_l1_def set_reg_def split: if_splits)
  next
    case (INVL1 sc)
    then show ?thesis using z(1) r hv inw unfolding l1z by (auto split: if_splits)
  next
    case (LD r0 x)
    then show ?thesis using z(1) r hv unfolding l1z by (auto simp: Let_def set_reg_def split: if_splits)
  next
    case (INCL2 r0 x)
    then show ?thesis using z(1) r hv unfolding l1z
      by (auto simp: Let_def set_reg_def set_l2_def enq_l2_def split: if_splits)
  next
    case (LKrmw sc)
    then show ?thesis using z(1) r hv unfolding l1z by (auto split: if_splits)
  next
    case (UNLKrmw sc)
    then show ?thesis using z(1) r hv unfolding l1z by (auto split: if_splits)
  next
    case (LK x)
    then show ?thesis using z(1) r hv unfolding l1z by (auto simp: Let_def split: if_splits)
  next
    case (UNLK x)
    then show ?thesis using z(1) r hv unfolding l1z by (auto simp: Let_def split: if_splits)
  qed (use z(1) r hv l1z in \<open>auto simp: set_reg_def\<close>)
qed

text \<open>A write a step performs in the L1 comes after every write performed
  before that is at home in its work-group.\<close>
lemma sb_new_line:
  assumes ti: "time_inv S P s g" and c0: "0 < clk g" and a: "wx S P s y a"
    and home: "ga2 g a = None \<longrightarrow> ewg L a = Some w" "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L w)"
    and old: "gt g' a = gt g a" "ga2 g' a = ga2 g a" "ga3 g' a = ga3 g a"
    and e: "ga2 g' e = None" "ga3 g' e = None" "ewg L e = Some w" "clk g < gt g' e"
  shows "sb L g' a e"
proof -
  have p: "ga2 g a = None \<longrightarrow> ga3 g a = None"
  proof (cases "\<exists>z. a = Init z")
    case True
    then show ?thesis using ti by (auto simp: time_inv_def)
  next
    case False
    then show ?thesis using time_perf[OF ti a] by blast
  qed
  have "gt g a < clk g" using gt_lt[OF ti c0 a] .
  then show ?thesis by (intro sb_fresh1) (use home old e p in auto)
qed

text \<open>The write a store or an increment in the L1 puts in its line.\<close>
lemma new_line_facts:
  assumes gi: "ginv L S P s' g'" and gs: "gstep P (done_ev S P s) (done_ev S P s') i g g'"
    and r: "readable (l1 s' w y)" and e: "h1 g' w y = Acc t (kd S P s t) p" and i: "\<forall>r x. i \<noteq> INCL2 r x"
  shows "ga2 g' (h1 g' w y) = None \<and> ga3 g' (h1 g' w y) = None \<and> clk g < gt g' (h1 g' w y)
    \<and> ewg L (h1 g' w y) = Some (wg_of L t)"
proof -
  have "wx S P s' y (h1 g' w y)" using h1_wx[OF _ r] gi by (simp add: ginv_def)
  then have "is_wr P (h1 g' w y)" "done_ev S P s' (h1 g' w y)" using e by (simp_all add: wx_def)
  moreover have "\<not> done_ev S P s (h1 g' w y)" using e by simp
  ultimately show ?thesis using gs i e unfolding gstep_def by auto
qed

text \<open>What an access performed before the step knows, and is not exempt,
  stays settled before its work-group's lines.\<close>
lemma kl_old:
  assumes inv: "ginv L S P s g" and gi: "ginv L S P s' g'"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and ar: "acq_rows S A B" "rl_rows S A B"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and ww: "wg_of L t \<in> wgs L" and c0: "0 < clk g" and kh: "kh_ok L S P s g" and kl: "kl_ok L S P s g"
    and u: "u \<in> src_threads P" and c: "done_ev S P s c" "sthread c = Some u" "knows_at L P g c a"
    and ne: "\<not> exempt L S P s c a" and y: "sloc P a = Some y" and r: "readable (l1 s' (wg_of L u) y)"
  shows "sb L g' a (h1 g' (wg_of L u) y)"
proof -
  have ei: "ev_inv S P s g" and ti: "time_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have wa: "wx S P s y a" using knows_at_wx[OF ei c(1,3) y] .
  have nre: "\<not> rexempt L S P s c a" using rexempt_exempt[OF rows ar u c(2)] ne by blast
  have home: "ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L u)" "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L u))"
    using kh_at[OF kh u c wa nre] by blast+
  have so: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using gs that by (simp add: gstep_def)
  have ao: "gt g' a = gt g a" "ga2 g' a = ga2 g a" "ga3 g' a = ga3 g a" using so[OF wx_done[OF wa]] by simp_all
  from step_l1[OF st rows gv ww r] show ?thesis
  proof
    assume l: "readable (l1 s (wg_of L u) y) \<and> h1 g' (wg_of L u) y = h1 g (wg_of L u) y
      \<and> (\<forall>sc. instrs (compile S P) t ! pc s t = INVL1 sc \<longrightarrow> wg_of L u \<noteq> wg_of L t)"
    have "sb L g a (h1 g (wg_of L u) y)" using kl u c wa l ne unfolding kl_ok_def by blast
    moreover have "done_ev S P s (h1 g (wg_of L u) y)" using wx_done[OF h1_wx[OF li]] l by blast
    ultimately show ?thesis using sb_cong[of g' a g "h1 g (wg_of L u) y"] ao so l by simp
  next
    assume l: "wg_of L u = wg_of L t \<and> ((\<exists>v. instrs (compile S P) t ! pc s t = ST v y)
        \<or> (\<exists>r. instrs (compile S P) t ! pc s t = INCL1 r y)) \<and> (\<exists>p. h1 g' (wg_of L u) y = Acc t (kd S P s t) p)"
    then obtain p where p: "h1 g' (wg_of L u) y = Acc t (kd S P s t) p" by blast
    have "\<forall>r x. instrs (compile S P) t ! pc s t \<noteq> INCL2 r x" using l by auto
    note nf = new_line_facts[OF gi gs r p this]
    show ?thesis by (rule sb_new_line[OF ti c0 wa home ao]) (use nf l in auto)
  qed
qed

text \<open>An access performed before the step that is not exempt after it was
  not before, where its work-group's line is readable.\<close>
lemma exempt_step:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and ww: "wg_of L t \<in> wgs L" and c: "sthread c = Some u"
    and ne: "\<not> exempt L S P s' c a" and r: "readable (l1 s' (wg_of L u) y)"
  shows "\<not> exempt L S P s c a"
proof
  assume ex: "exempt L S P s c a"
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t"
  obtain z where z: "?n < length ?xs" "exec L t (?xs ! ?n) s = Some z" "visible (?xs ! ?n) \<or> quiet (?xs ! ?n)"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s"
      "kd S P s' t = (if visible (?xs ! ?n) then Suc (kd S P s t) else kd S P s t)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(4,5) by (simp add: set_pc_def)
  obtain k p where cp: "c = Acc u k p" "Suc k = kd S P s u" "win (instrs (compile S P) u) (pc s u)"
      "sloc P a = sloc P c \<or> fw L P (wg_of L u) (sloc P c)"
    using ex c unfolding exempt_def by auto
  show False
  proof (cases "u = t")
    case False
    then have "exempt L S P s' c a" unfolding exempt_def using cp z(7) pc' by auto
    then show False using ne by blast
  next
    case True
    show False
    proof (cases "visible (?xs ! ?n)")
      case True
      then show False using visible_no_win[OF z(1)] cp(3) \<open>u = t\<close> by simp
    next
      case nv: False
      show False
      proof (cases "\<exists>sc. ?xs ! ?n = INVL1 sc")
        case True
        then show False using step_l1[OF st rows gv ww r] \<open>u = t\<close> by auto
      next
        case False
        then have "win ?xs (Suc ?n)" using win_Suc' cp(3) \<open>u = t\<close> by blast
        then have "exempt L S P s' c a" unfolding exempt_def using cp z(6) nv pc' \<open>u = t\<close> by auto
        then show False using ne by blast
      qed
    qed
  qed
qed

section \<open>What a remote release hands over is fresh in every L1 of its device\<close>

text \<open>[RSP15] sec. 5.2: a remote release flushes its work-group's L1, then
  invalidates every L1 of its device, then stores; so every work-group of
  the device finds, from then on, what the releaser knew. Promotion rests
  on it: a work-group-scope acquire of another work-group that reads the
  release invalidates nothing itself (rp_ok).\<close>

subsection \<open>Code after an invalidation of the device's L1s\<close>

text \<open>Position n of code xs comes after an invalidation of the L1s of the
  device, or of every device, that a flush of the L1 precedes, with only
  quiet instructions between ([RSP15] sec. 5.2: the remote release's
  FLUL1; INVL1 DV before its store).\<close>
definition dinv :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "dinv xs n \<longleftrightarrow> (\<exists>j < n. (xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS) \<and> flushed xs j
     \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m)))"

lemma dinv_append: "dinv ys m \<Longrightarrow> dinv (xs @ ys) (length xs + m)"
proof -
  assume "dinv ys m"
  then obtain j where j: "j < m" "ys ! j = INVL1 DV \<or> ys ! j = INVL1 SYS" "flushed ys j"
      "\<forall>k. j < k \<and> k < m \<longrightarrow> quiet (ys ! k)"
    unfolding dinv_def by blast
  have "flushed (xs @ ys) (length xs + j)" using flushed_append[OF j(3)] .
  moreover have "(xs @ ys) ! (length xs + j) = ys ! j" by (simp add: nth_append)
  moreover have "\<forall>k. length xs + j < k \<and> k < length xs + m \<longrightarrow> quiet ((xs @ ys) ! k)"
  proof (intro allI impI)
    fix k assume k: "length xs + j < k \<and> k < length xs + m"
    then have "(xs @ ys) ! k = ys ! (k - length xs)" by (simp add: nth_append)
    moreover have "j < k - length xs \<and> k - length xs < m" using k by linarith
    ultimately show "quiet ((xs @ ys) ! k)" using j(4) by simp
  qed
  ultimately show ?thesis unfolding dinv_def using j(1,2) by (intro exI[of _ "length xs + j"]) auto
qed

lemma dinv_prefix:
  assumes d: "dinv xs n" and n: "n \<le> length xs"
  shows "dinv (xs @ ys) n"
proof -
  obtain j where j: "j < n" "xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS" "flushed xs j"
      "\<forall>k. j < k \<and> k < n \<longrightarrow> quiet (xs ! k)"
    using d unfolding dinv_def by blast
  have "flushed (xs @ ys) j" using flushed_prefix[OF j(3)] j(1) n by simp
  moreover have "\<forall>k. j < k \<and> k < n \<longrightarrow> quiet ((xs @ ys) ! k)" using j(4) n by (simp add: nth_append)
  moreover have "(xs @ ys) ! j = xs ! j" using j(1) n by (simp add: nth_append)
  ultimately show ?thesis unfolding dinv_def using j(1,2) by (intro exI[of _ j]) auto
qed

text \<open>One position on: still after the invalidation, past a quiet
  instruction, or just past the invalidation.\<close>
lemma dinv_Suc:
  assumes "dinv xs (Suc n)"
  shows "(dinv xs n \<and> quiet (xs ! n)) \<or> ((xs ! n = INVL1 DV \<or> xs ! n = INVL1 SYS) \<and> flushed xs n)"
proof -
  obtain j where j: "j < Suc n" "xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS" "flushed xs j"
      "\<forall>k. j < k \<and> k < Suc n \<longrightarrow> quiet (xs ! k)"
    using assms unfolding dinv_def by blast
  show ?thesis
  proof (cases "j = n")
    case True
    then show ?thesis using j(2,3) by simp
  next
    case False
    then have jn: "j < n" using j(1) by simp
    then have "dinv xs n" unfolding dinv_def using j(2,3,4) by (intro exI[of _ j]) auto
    moreover have "quiet (xs ! n)" using j(4) jn by simp
    ultimately show ?thesis by blast
  qed
qed

text \<open>After the invalidation the thread is still past its flush.\<close>
lemma dinv_flushed:
  assumes "dinv xs n"
  shows "flushed xs n"
proof -
  obtain j where j: "j < n" "xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS" "flushed xs j"
      "\<forall>k. j < k \<and> k < n \<longrightarrow> quiet (xs ! k)"
    using assms unfolding dinv_def by blast
  obtain i where i: "i < j" "\<exists>sc. xs ! i = FLUL1 sc" "\<forall>k. i < k \<and> k < j \<longrightarrow> quiet (xs ! k)"
    using j(3) unfolding flushed_def by blast
  have q: "quiet (xs ! k)" if "i < k" "k < n" for k
  proof -
    consider "k < j" | "k = j" | "j < k" by linarith
    then show ?thesis using i(3) j(2,4) that by cases auto
  qed
  show ?thesis unfolding flushed_def using i(1,2) j(1) q by (intro exI[of _ i]) auto
qed

subsection \<open>The rows of remote stores and remote RMWs\<close>

text \<open>A remote store (the operations whose write promotes).\<close>
fun rstore_op :: "src_op \<Rightarrow> bool" where
  "rstore_op (Store sc rm) = rm"
| "rstore_op (Load sc rm) = False"
| "rstore_op (FetchInc sc rm) = False"

text \<open>A remote RMW at device scope or wider (whose write promotes too:
  racq_ev).\<close>
fun rrmw_op :: "src_op \<Rightarrow> bool" where
  "rrmw_op (FetchInc sc rm) = (rm \<and> sc \<in> {Device, AllDevices})"
| "rrmw_op (Store sc rm) = False"
| "rrmw_op (Load sc rm) = False"

text \<open>A row whose visible instruction comes after an invalidation of the
  device's L1s that a flush precedes.\<close>
definition dinv_vis :: "row \<Rightarrow> bool" where
  "dinv_vis rw \<longleftrightarrow> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> dinv (rw r x) m)"

text \<open>[RSP15] sec. 5.2: a remote store flushes its L1 and invalidates every
  L1 of its device before it stores (rsp-new's FLUL1 WG; INVL1 DV; ST, and
  its all-devices row's FLUL1 ALL; ...; INVL1 ALL; ST); a remote RMW does
  so before its increment (rsp-new's FLUL1 DV; INVL1 DV; RMWL2).\<close>
definition prom_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> src_op set \<Rightarrow> bool" where
  "prom_rows S A B \<longleftrightarrow> (\<forall>a \<in> A \<union> B. rstore_op a \<or> rrmw_op a \<longrightarrow> (\<exists>rw. S a = Some rw \<and> dinv_vis rw))"

text \<open>For deciding rows by simp: a bounded range one longer.\<close>
lemma all_between_Suc: "(\<forall>m. j < m \<and> m < Suc n \<longrightarrow> P m) \<longleftrightarrow> (j < n \<longrightarrow> P n) \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> P m)"
  using less_Suc_eq by auto

lemmas dinv_simps = dinv_vis_def dinv_def flushed_def numeral_eq_Suc All_less_Suc Ex_less_Suc all_between_Suc

text \<open>So in code compiled by such rows, the access of a remote store, and
  the increment of a remote RMW, come after that invalidation.\<close>
lemma compiled_dinv:
  assumes rows: "l1_rows S A" "l2_rows S B" "prom_rows S A B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x" "rstore_op a \<or> rrmw_op a"
  shows "dinv (concat (map (compile_instr S) c)) n"
proof -
  obtain rw pre post m where rw: "a \<in> A \<union> B" "S a = Some rw" "concat (map (compile_instr S) c) = pre @ rw r x @ post"
      "n = length pre + m" "m < length (rw r x)" "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "dinv_vis rw" using rows(3) w(2) rw(1,2) by (auto simp: prom_rows_def)
  then have "dinv (rw r x) m" using rw(5,6) unfolding dinv_vis_def by blast
  then have "dinv (rw r x @ post) m" using dinv_prefix[of "rw r x" m post] rw(5) by simp
  then show ?thesis using dinv_append[of "rw r x @ post" m pre] rw(3,4) by simp
qed

subsection \<open>A write fresh in every L1 of a device\<close>

text \<open>A write that has reached the L2, of device d or in memory (or the
  initial one), settled before every readable line of its location in
  every L1 of d, and, a write not of d, in d's L2.\<close>
definition fresh :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> did \<Rightarrow> sev \<Rightarrow> bool" where
  "fresh L S P s g d a \<longleftrightarrow> ga2 g a \<noteq> None \<and> (\<forall>u k p. a = Acc u k p \<longrightarrow> dv L a = Some d \<or> ga3 g a \<noteq> None)
     \<and> (\<forall>v x. v \<in> wgs L \<and> dev_of L v = d \<and> readable (l1 s v x) \<and> wx S P s x a \<longrightarrow> sb L g a (h1 g v x))
     \<and> (\<forall>x. readable (l2 s d x) \<and> wx S P s x a \<and> dv L a \<noteq> Some d \<longrightarrow> sb L g a (h2 g d x))"

text \<open>A write fresh for d that is not of d is in memory.\<close>
lemma fresh_mem:
  assumes ti: "time_inv S P s g" and f: "fresh L S P s g d a" and wa: "wx S P s x a" and na: "dv L a \<noteq> Some d"
  shows "ga3 g a \<noteq> None"
proof (cases a)
  case (Init z)
  then show ?thesis using ti by (simp add: time_inv_def)
next
  case (Acc u k p)
  then show ?thesis using f na by (simp add: fresh_def)
qed

text \<open>An environment step keeps it: a line fetched copies the L2's, settled
  after every write of the device that has reached the L2.\<close>
lemma fresh_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and le: "l1_env L s s' g g'"
    and le2: "l2_env L s s' g g'" and inv: "ginv L S P s g" and l2: "l2_ok L S P s g" and f: "fresh L S P s g d a"
  shows "fresh L S P s' g' d a"
  unfolding fresh_def
proof (intro conjI allI impI)
  show "ga2 g' a \<noteq> None" using f m by (simp add: fresh_def env_mono_def)
next
  fix u k p assume "a = Acc u k p"
  then show "dv L a = Some d \<or> ga3 g' a \<noteq> None" using f m by (auto simp: fresh_def env_mono_def)
next
  fix v x assume a: "v \<in> wgs L \<and> dev_of L v = d \<and> readable (l1 s' v x) \<and> wx S P s' x a"
  have li: "lines_inv S P s g" using inv by (simp add: ginv_def)
  have wa: "wx S P s x a" using a wx_same[OF pc] by simp
  from le a consider (same) "readable (l1 s v x)" "h1 g' v x = h1 g v x"
    | (fetch) "\<not> dirty (l1 s v x)" "readable (l2 s (dev_of L v) x)" "h1 g' v x = h2 g (dev_of L v) x"
    unfolding l1_env_def by blast
  then show "sb L g' a (h1 g' v x)"
  proof cases
    case same
    have "sb L g a (h1 g v x)" using f a wa same(1) unfolding fresh_def by blast
    moreover have "wx S P s x (h1 g v x)" using h1_wx[OF li same(1)] .
    ultimately show ?thesis using k wa same(2) unfolding sb_keep_def by metis
  next
    case fetch
    have a2: "ga2 g a \<noteq> None" using f by (simp add: fresh_def)
    have "sb L g a (h2 g (dev_of L v) x)"
    proof (cases "a = Init x \<or> dv L a = Some (dev_of L v)")
      case True
      then show ?thesis using sb_l2_line[OF inv l2 _ wa a2 fetch(2)] by blast
    next
      case False
      then show ?thesis using f fetch(2) wa a unfolding fresh_def by blast
    qed
    moreover have "wx S P s x (h2 g (dev_of L v) x)" using h2_wx[OF li fetch(2)] .
    ultimately show ?thesis using k wa fetch(3) unfolding sb_keep_def by metis
  qed
next
  fix x assume a: "readable (l2 s' d x) \<and> wx S P s' x a \<and> dv L a \<noteq> Some d"
  have li: "lines_inv S P s g" and ti: "time_inv S P s g" using inv by (simp_all add: ginv_def)
  have wa: "wx S P s x a" using a wx_same[OF pc] by simp
  have a3: "ga3 g a \<noteq> None" using fresh_mem[OF ti f wa] a by blast
  have r2: "readable (l2 s' d x)" using a by blast
  from le2[unfolded l2_env_def, rule_format, OF r2]
  consider (same) "readable (l2 s d x)" "h2 g' d x = h2 g d x" | (mm) "h2 g' d x = hm g x"
    | (nw) "ga3 g' (h2 g' d x) = None"
    by (elim disjE conjE) (rule that; assumption)+
  then show "sb L g' a (h2 g' d x)"
  proof cases
    case same
    have "sb L g a (h2 g d x)" using f same(1) wa a unfolding fresh_def by blast
    moreover have "wx S P s x (h2 g d x)" using h2_wx[OF li same(1)] .
    ultimately show ?thesis using k wa same(2) unfolding sb_keep_def by metis
  next
    case mm
    have hm: "wx S P s x (hm g x)" "\<forall>e. wx S P s x e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g x \<or> klt (key g e) (key g (hm g x))"
      using li by (simp_all add: lines_inv_def)
    have "sb L g a (hm g x)" using hm(2) wa a3 unfolding sb_def by blast
    then show ?thesis using k wa hm(1) mm unfolding sb_keep_def by metis
  next
    case nw
    have "ga3 g' a \<noteq> None" using m a3 by (simp add: env_mono_def)
    then show ?thesis using nw by (simp add: sb_def)
  qed
qed

text \<open>A thread step keeps it for a write performed before: a line kept
  keeps its write, a store or an increment in the L1 writes the newest.\<close>
lemma fresh_thread:
  assumes inv: "ginv L S P s g" and gi: "ginv L S P s' g'"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and ww: "wg_of L t \<in> wgs L" and c0: "0 < clk g" and dd: "dev_of L (wg_of L t) \<in> devs L"
    and f: "fresh L S P s g d a" and da: "done_ev S P s a"
  shows "fresh L S P s' g' d a"
proof -
  have ti: "time_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have ti': "time_inv S P s' g'" and li': "lines_inv S P s' g'" using gi by (simp_all add: ginv_def)
  have so: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using gs that by (simp add: gstep_def)
  have ao: "gt g' a = gt g a" "ga2 g' a = ga2 g a" "ga3 g' a = ga3 g a" using so[OF da] by simp_all
  show ?thesis
    unfolding fresh_def
  proof (intro conjI allI impI)
    show "ga2 g' a \<noteq> None" using f ao by (simp add: fresh_def)
  next
    fix u k p assume "a = Acc u k p"
    then show "dv L a = Some d \<or> ga3 g' a \<noteq> None" using f ao by (simp add: fresh_def)
  next
    fix v y assume a: "v \<in> wgs L \<and> dev_of L v = d \<and> readable (l1 s' v y) \<and> wx S P s' y a"
    have wa: "wx S P s y a" using a da by (auto simp: wx_def)
    show "sb L g' a (h1 g' v y)"
    proof (cases "a = Init y")
      case True
      then show ?thesis using sb_Init[OF ti' h1_wx[OF li']] a by simp
    next
      case ni: False
      have r: "readable (l1 s' v y)" using a by blast
      from step_l1[OF st rows gv ww r] show ?thesis
      proof
        assume l: "readable (l1 s v y) \<and> h1 g' v y = h1 g v y
          \<and> (\<forall>sc. instrs (compile S P) t ! pc s t = INVL1 sc \<longrightarrow> v \<noteq> wg_of L t)"
        have "sb L g a (h1 g v y)" using f a wa l unfolding fresh_def by blast
        moreover have "done_ev S P s (h1 g v y)" using wx_done[OF h1_wx[OF li]] l by blast
        ultimately show ?thesis using sb_cong[of g' a g "h1 g v y"] ao so l by simp
      next
        assume l: "v = wg_of L t \<and> ((\<exists>w. instrs (compile S P) t ! pc s t = ST w y)
            \<or> (\<exists>r. instrs (compile S P) t ! pc s t = INCL1 r y)) \<and> (\<exists>p. h1 g' v y = Acc t (kd S P s t) p)"
        then obtain p where p: "h1 g' v y = Acc t (kd S P s t) p" by blast
        have "\<forall>r x. instrs (compile S P) t ! pc s t \<noteq> INCL2 r x" using l by auto
        note nf = new_line_facts[OF gi gs _ p this]
        have ad: "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L v)"
        proof (cases a)
          case (Init z)
          then show ?thesis using ti by (simp add: time_inv_def)
        next
          case (Acc u' k' p')
          then show ?thesis using f a by (auto simp: fresh_def)
        qed
        have home: "ga2 g a = None \<longrightarrow> ewg L a = Some v" "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L v)"
          using f ad unfolding fresh_def by auto
        show ?thesis by (rule sb_new_line[OF ti c0 wa home ao]) (use nf l a in auto)
      qed
    qed
  next
    fix y assume a: "readable (l2 s' d y) \<and> wx S P s' y a \<and> dv L a \<noteq> Some d"
    have wa: "wx S P s y a" using a da by (auto simp: wx_def)
    have a3: "ga3 g a \<noteq> None" using fresh_mem[OF ti f wa] a by blast
    have r: "readable (l2 s' d y)" using a by blast
    from step_l2[OF st rows gv dd r] show "sb L g' a (h2 g' d y)"
    proof
      assume l: "readable (l2 s d y) \<and> h2 g' d y = h2 g d y
        \<and> (\<forall>sc. instrs (compile S P) t ! pc s t = INVL2 sc \<longrightarrow> d \<noteq> dev_of L (wg_of L t))"
      have "sb L g a (h2 g d y)" using f a wa l unfolding fresh_def by blast
      moreover have "done_ev S P s (h2 g d y)" using wx_done[OF h2_wx[OF li]] l by blast
      ultimately show ?thesis using sb_cong[of g' a g "h2 g d y"] ao so l by simp
    next
      assume l: "d = dev_of L (wg_of L t) \<and> (\<exists>r. instrs (compile S P) t ! pc s t = INCL2 r y)
        \<and> h2 g' d y = Acc t (kd S P s t) True"
      have "h2 g' d y = Acc t (kd S P s t) True" using l by blast
      then have "ga3 g' (h2 g' d y) = None" using new_l2_line[OF gi gs r] by blast
      then show ?thesis using a3 ao by (simp add: sb_def)
    qed
  qed
qed

text \<open>An invalidation of the device's L1s leaves none of their lines
  readable.\<close>
lemma dinv_lines:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and i: "instrs (compile S P) t ! pc s t = INVL1 DV \<or> instrs (compile S P) t ! pc s t = INVL1 SYS"
    and v: "v \<in> wgs L" "dev_of L v = dev_of L (wg_of L t)"
  shows "\<not> readable (l1 s' v x)"
proof -
  obtain z where z: "exec L t (instrs (compile S P) t ! pc s t) s = Some z" "s' = set_pc t (Suc (pc s t)) z"
    by (rule step_shape[OF st rows]) blast
  have "v \<in> wgs_in L DV (wg_of L t)" "v \<in> wgs_in L SYS (wg_of L t)" using v by (auto simp: wgs_in_def)
  then show ?thesis using z i by (auto simp: set_pc_def)
qed

subsection \<open>The invariant\<close>

text \<open>A remote store of thread t at position k.\<close>
definition rstore :: "src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "rstore P t k \<longleftrightarrow> (\<exists>a r x. ins P t k = Op a r x \<and> rstore_op a)"

text \<open>A remote RMW at device scope or wider of thread t at position k.\<close>
definition rrmw :: "src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "rrmw P t k \<longleftrightarrow> (\<exists>a r x. ins P t k = Op a r x \<and> rrmw_op a)"

text \<open>While a thread is past the invalidation of its row, every write it
  knows is fresh in its device's L1s; and so is every write a performed
  remote store knew, other than the store's own, and every write the
  thread of a performed remote RMW knew before it ([RSP15] sec. 5.2: the
  RMW's flush and invalidation of the device's L1s before its
  increment).\<close>
definition rp_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "rp_ok L S P s g \<longleftrightarrow>
     (\<forall>t \<in> src_threads P. dinv (instrs (compile S P) t) (pc s t) \<longrightarrow>
        (\<forall>x a. wx S P s x a \<and> knows L S P s g t a \<longrightarrow> fresh L S P s g (dev_of L (wg_of L t)) a))
   \<and> (\<forall>t k a. rstore P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s (Acc t k False)
        \<and> knows_at L P g (Acc t k False) a \<and> a \<noteq> Acc t k False \<longrightarrow> fresh L S P s g (dev_of L (wg_of L t)) a)
   \<and> (\<forall>t k j q a. rrmw P t k \<and> done_ev S P s (Acc t k True) \<and> j < k \<and> knows_at L P g (Acc t j q) a
        \<longrightarrow> fresh L S P s g (dev_of L (wg_of L t)) a)"

lemma rp_ok_initial: "rp_ok L S P (initial (src_init P)) (ghost0 P)"
  by (simp add: rp_ok_def dinv_def initial_fields)

lemma rd_true: "\<not> rd c True"
  by (cases "(c, True)" rule: rd.cases) auto

lemma rp_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and le: "l1_env L s s' g g'"
    and le2: "l2_env L s s' g g'" and inv: "ginv L S P s g" and l2: "l2_ok L S P s g" and rp: "rp_ok L S P s g"
  shows "rp_ok L S P s' g'"
proof -
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have kn: "knows L S P s' g' = knows L S P s g" using knows_same[OF pc gr] .
  have ka: "knows_at L P g' = knows_at L P g" unfolding knows_at_def[abs_def] hbm_def swm_def ob_def[abs_def] gr ..
  have ws: "wx S P s' = wx S P s" using wx_same[OF pc] .
  have ds: "done_ev S P s' = done_ev S P s" using done_same[OF pc] .
  note fe = fresh_env[OF pc m k le le2 inv l2]
  show ?thesis
    unfolding rp_ok_def
  proof (intro conjI ballI allI impI)
    fix t x a assume t: "t \<in> src_threads P" and d: "dinv (instrs (compile S P) t) (pc s' t)"
      and a: "wx S P s' x a \<and> knows L S P s' g' t a"
    have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp t d a pc ws kn unfolding rp_ok_def by auto
    then show "fresh L S P s' g' (dev_of L (wg_of L t)) a" using fe by blast
  next
    fix t k a assume a: "rstore P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s' (Acc t k False)
      \<and> knows_at L P g' (Acc t k False) a \<and> a \<noteq> Acc t k False"
    have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp a ds ka unfolding rp_ok_def by auto
    then show "fresh L S P s' g' (dev_of L (wg_of L t)) a" using fe by blast
  next
    fix t k j q a assume a: "rrmw P t k \<and> done_ev S P s' (Acc t k True) \<and> j < k \<and> knows_at L P g' (Acc t j q) a"
    have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp a ds ka unfolding rp_ok_def by auto
    then show "fresh L S P s' g' (dev_of L (wg_of L t)) a" using fe by blast
  qed
qed

text \<open>A step that performs nothing leaves what every thread knows.\<close>
lemma knows_quiet:
  assumes ei: "ev_inv S P s g" and gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r"
    and dn: "\<forall>e. done_ev S P s' e \<longrightarrow> done_ev S P s e" and k: "knows L S P s' g' u a"
  shows "knows L S P s g u a"
  using knows_new[OF ei gr _ k, of "Suc u"] dn by simp

text \<open>What a store performed by a thread step knew, other than itself, its
  thread knew before the step: a store reads nothing, so happens-before
  into it is program order from its thread's performed accesses.\<close>
lemma store_knew:
  assumes inv: "ginv L S P s g" and gi: "ginv L S P s' g'" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and w: "is_wr P (Acc t k False)" "\<not> is_rd P (Acc t k False)" "done_ev S P s' (Acc t k False)"
      "\<not> done_ev S P s (Acc t k False)"
    and a: "knows_at L P g' (Acc t k False) a" "a \<noteq> Acc t k False"
  shows "knows L S P s g t a \<and> done_ev S P s a \<and> (\<exists>x. wx S P s x a)"
proof -
  let ?k = "kd S P s t" and ?w = "Acc t k False"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have new: "(\<exists>p. e = Acc t ?k p)" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] by blast
  have kk: "k = ?k" using new[OF w(3,4)] by blast
  obtain b where b: "is_wr P b \<or> is_rd P b" "b = ?w \<or> (b, ?w) \<in> hbm L P g'" "ob P g' b = a"
    using a(1) unfolding knows_at_def by blast
  have bw: "(b, ?w) \<in> hbm L P g'" using b(2,3) a(2) w(2) by (auto simp: ob_def)
  have po_new: "sthread y = Some t" if "(y, c') \<in> src_po P" "\<not> done_ev S P s c'" "done_ev S P s' c'" for y c'
    using that new[OF that(3,2)] by (auto simp: src_po_def)
  have nd: "\<not> done_ev S P s (Acc t ?k q)" for q by simp
  have od: "done_ev S P s (Acc t j q)" if "j < ?k" for j q using that by simp
  have rdold: "done_ev S P s (grf g' r)" if rr: "is_rd P r" "done_ev S P s' r" for r
  proof (cases "done_ev S P s r")
    case True
    then show ?thesis using gr ev_parts(2)[OF ei] rr(1) by metis
  next
    case False
    obtain q where "r = Acc t ?k q" using new[OF rr(2) False] by blast
    then have "r = Acc t ?k False" using rr(1) rd_true by (cases q) (auto simp: acc_def)
    then show ?thesis using rr(1) w(2) kk by simp
  qed
  have db: "done_ev S P s b"
  proof (rule ccontr)
    assume "\<not> done_ev S P s b"
    moreover have "done_ev S P s' b" using hbm_done[OF ei' bw] w(3) by blast
    ultimately have "?w = Acc t ?k True" using hbm_from_new[OF ei' _ nd od rdold bw] new w(3) by blast
    then show False by simp
  qed
  have hn: "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
     \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
    by (rule hbm_into_new[OF ei ei' gr bw w(3,4)]) (use po_new in blast)
  obtain y where y: "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s y"
      "sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)"
    using hn db by blast
  have "sthread y = Some t"
  proof (rule ccontr)
    assume "sthread y \<noteq> Some t"
    then obtain r where r: "(y, r) \<in> swm L P g'" "\<not> done_ev S P s r" "done_ev S P s' r" using y(3) by blast
    have "is_rd P r" using r(1) by (simp add: swm_def)
    moreover obtain q where "r = Acc t ?k q" using new[OF r(3,2)] by blast
    ultimately show False using w(2) kk rd_true by (cases q) (auto simp: acc_def)
  qed
  have ob: "ob P g' b = ob P g b" using gr db by (simp add: ob_def)
  have ku: "knows L S P s g t a" unfolding knows_def
    by (rule disjI2, rule exI[of _ b], rule exI[of _ y]) (use b(1,3) y(1,2) \<open>sthread y = Some t\<close> ob in auto)
  have "knows_at L P g y a" unfolding knows_at_def using b(1,3) y(1) ob by auto
  then obtain x where "wx S P s x a" "done_ev S P s a" using knows_at_done[OF ei y(2)] by blast
  then show ?thesis using ku by blast
qed

lemma rp_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and kh: "kh_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "prom_rows S A B"
    and wp: "well_placed L P" and a2r: "acq2_rows S (A \<union> B)" and gi: "ginv L S P s' g'"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and c0: "0 < clk g" and rp: "rp_ok L S P s g" and kl2: "kl2_ok L S P s g"
  shows "rp_ok L S P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t" and ?w0 = "wg_of L t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have new: "(\<exists>p. e = Acc t ?k p) \<and> visible ?i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] .
  have dn: "\<forall>e. sthread e \<noteq> Some t \<longrightarrow> done_ev S P s' e \<longrightarrow> done_ev S P s e" using new by fastforce
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(5,6) by (simp add: set_pc_def)
  have ww: "wg_of L t \<in> wgs L" using wp t by (simp add: well_placed_def)
  have dd: "dev_of L (wg_of L t) \<in> devs L" using wp t by (simp add: well_placed_def)
  note ft = fresh_thread[OF inv gi st rows(1-3) gs gv ww c0 dd]
  have wd: "done_ev S P s a" if "wx S P s y a" for y a using wx_done[OF that] .
  \<comment> \<open>a step that is not visible performs nothing\<close>
  have qd: "\<forall>e. done_ev S P s' e \<longrightarrow> done_ev S P s e" if "\<not> visible ?i"
    using new that by blast
  \<comment> \<open>the access of a remote store, or the increment of a remote RMW, comes
    after the invalidation of its row\<close>
  have vdinv: "dinv ?xs ?n"
    if vis: "visible ?i" and op: "src_code P t ! ?k = Op a0 r0 x0" and ra: "rstore_op a0 \<or> rrmw_op a0" for a0 r0 x0
  proof -
    have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
    have xs: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
    have "dinv (concat (map (compile_instr S) (src_code P t))) ?n"
      by (rule compiled_dinv[OF rows(1,2,4) ops _ _ _ op ra]) (use z(1) vis xs in \<open>simp_all add: kd_def\<close>)
    then show ?thesis using xs by simp
  qed
  show ?thesis
    unfolding rp_ok_def
  proof (intro conjI ballI allI impI)
    fix u x a assume u: "u \<in> src_threads P" and d: "dinv (instrs (compile S P) u) (pc s' u)"
      and a: "wx S P s' x a \<and> knows L S P s' g' u a"
    show "fresh L S P s' g' (dev_of L (wg_of L u)) a"
    proof (cases "u = t")
      case False
      have ku: "knows L S P s g u a" using knows_new[OF ei gr dn _ False] a by blast
      have da: "done_ev S P s a"
      proof (cases "done_ev S P s a")
        case False
        have "done_ev S P s' a" using a wx_done by blast
        then obtain p where "a = Acc t ?k p" using new False by blast
        then show ?thesis using knows_old[OF ei ku] \<open>u \<noteq> t\<close> by auto
      qed
      have wa: "wx S P s x a" using a da by (auto simp: wx_def)
      have "dinv (instrs (compile S P) u) (pc s u)" using d pc' False by simp
      then have "fresh L S P s g (dev_of L (wg_of L u)) a" using rp u wa ku unfolding rp_ok_def by blast
      then show ?thesis using ft da by blast
    next
      case ut: True
      have ds: "dinv ?xs (Suc ?n)" using d pc' ut by simp
      have nv: "\<not> visible ?i"
      proof
        assume "visible ?i"
        then show False using dinv_Suc[OF ds] by (cases ?i) auto
      qed
      have dq: "\<forall>e. done_ev S P s' e \<longrightarrow> done_ev S P s e" using qd[OF nv] .
      have ku: "knows L S P s g t a" using knows_quiet[OF ei gr dq] a ut by blast
      have da: "done_ev S P s a" using dq a wx_done by blast
      have wa: "wx S P s x a" using a da by (auto simp: wx_def)
      from dinv_Suc[OF ds] show ?thesis
      proof
        assume "dinv ?xs ?n \<and> quiet ?i"
        then have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp t wa ku unfolding rp_ok_def by blast
        then show ?thesis using ft da ut by blast
      next
        assume iv: "(?i = INVL1 DV \<or> ?i = INVL1 SYS) \<and> flushed ?xs ?n"
        have a2: "ga2 g a \<noteq> None" using known_flushed[OF oi kh t wp _ z(3) wa ku] iv by blast
        have a2': "ga2 g' a \<noteq> None" using a2 gs da by (simp add: gstep_def)
        \<comment> \<open>a write of another device it knows is in memory (kh_ok), and
          settled before its device's L2 lines (kl2_ok: no access of the
          thread is exempt where it invalidates an L1)\<close>
        have hd: "dv L a = Some (dev_of L ?w0) \<or> ga3 g' a \<noteq> None"
        proof (cases "ga3 g a = None")
          case True
          then show ?thesis using kh t wa ku unfolding kh_ok_def by blast
        next
          case False
          then show ?thesis using gs da by (simp add: gstep_def)
        qed
        have "\<not> readable (l1 s' v y)" if "v \<in> wgs L" "dev_of L v = dev_of L ?w0" for v y
          using dinv_lines[OF st rows(1-3) _ that] iv by blast
        moreover have "sb L g' a (h2 g' (dev_of L ?w0) y)"
          if r2: "readable (l2 s' (dev_of L ?w0) y)" and wy: "wx S P s' y a" and na: "dv L a \<noteq> Some (dev_of L ?w0)"
          for y
        proof -
          have ns: "sthread a \<noteq> Some t"
          proof
            assume "sthread a = Some t"
            then show False using na by (cases a) (auto simp: dv_def)
          qed
          then obtain b c where bc: "is_wr P b \<or> is_rd P b" "done_ev S P s c" "sthread c = Some t"
              "b = c \<or> (b, c) \<in> hbm L P g" "ob P g b = a"
            using ku unfolding knows_def by blast
          have kc: "knows_at L P g c a" unfolding knows_at_def using bc(1,4,5) by blast
          obtain sc where isc: "?i = INVL1 sc" using iv by blast
          have ne: "\<not> exempt2 S P s c" using invl1_not_exempt2[OF rows(1-3) a2r t z(1) isc bc(3)] .
          have ya: "sloc P a = Some y" using wy wx_loc by blast
          show ?thesis using kl2_old[OF inv gi st rows(1-3) gs gv dd kh kl2 t bc(2,3) kc ne ya na r2] .
        qed
        ultimately show ?thesis unfolding fresh_def using a2' hd ut by blast
      qed
    qed
  next
    fix u k a assume a: "rstore P u k \<and> is_wr P (Acc u k False) \<and> done_ev S P s' (Acc u k False)
      \<and> knows_at L P g' (Acc u k False) a \<and> a \<noteq> Acc u k False"
    let ?w = "Acc u k False"
    show "fresh L S P s' g' (dev_of L (wg_of L u)) a"
    proof (cases "done_ev S P s ?w")
      case True
      have "knows_at L P g ?w a" using knows_at_keep[OF ei gr True] a by simp
      then have "fresh L S P s g (dev_of L (wg_of L u)) a" "done_ev S P s a"
        using rp a True knows_at_done[OF ei True] unfolding rp_ok_def by blast+
      then show ?thesis using ft by blast
    next
      case nw: False
      obtain p where wk: "?w = Acc t ?k p" and vis: "visible ?i" using new a nw by blast
      have ut: "u = t" and kk: "k = ?k" using wk by simp_all
      \<comment> \<open>what the store knew, its thread knew before the step\<close>
      have nrw: "\<not> is_rd P ?w" using a by (auto dest: rd_wr)
      have kn: "knows L S P s g t a \<and> done_ev S P s a \<and> (\<exists>x. wx S P s x a)"
        using store_knew[OF inv gi t st rows(1-3) gs gv] a nrw nw ut by blast
      then obtain x where ku: "knows L S P s g t a" and wa: "wx S P s x a" and da: "done_ev S P s a" by blast
      \<comment> \<open>the store's position comes after the invalidation of its row\<close>
      obtain a0 r0 x0 where op: "src_code P t ! ?k = Op a0 r0 x0" and ra: "rstore_op a0"
        using a ut kk by (auto simp: rstore_def ins_def)
      have "dinv ?xs ?n" using vdinv[OF vis op] ra by blast
      then have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp t wa ku unfolding rp_ok_def by blast
      then show ?thesis using ft da ut by blast
    qed
  next
    fix u k j q a assume a: "rrmw P u k \<and> done_ev S P s' (Acc u k True) \<and> j < k \<and> knows_at L P g' (Acc u j q) a"
    have dj: "done_ev S P s (Acc u j q)"
    proof -
      have "k < kd S P s' u" using a by simp
      moreover have "kd S P s' u \<le> Suc (kd S P s u)" using z(7,8) by (cases "u = t") auto
      ultimately show ?thesis using a by simp
    qed
    have kj: "knows_at L P g (Acc u j q) a" using knows_at_keep[OF ei gr dj] a by simp
    obtain x where wa: "wx S P s x a" and da: "done_ev S P s a" using knows_at_done[OF ei dj kj] by blast
    show "fresh L S P s' g' (dev_of L (wg_of L u)) a"
    proof (cases "done_ev S P s (Acc u k True)")
      case True
      then have "fresh L S P s g (dev_of L (wg_of L u)) a" using rp a kj unfolding rp_ok_def by blast
      then show ?thesis using ft da by blast
    next
      case nw: False
      obtain p where wk: "Acc u k True = Acc t ?k p" and vis: "visible ?i" using new a nw by blast
      have ut: "u = t" and kk: "k = ?k" using wk by simp_all
      have ku: "knows L S P s g t a" using knows_at_knows[OF dj _ kj] ut by simp
      \<comment> \<open>the increment comes after the invalidation of its row\<close>
      obtain a0 r0 x0 where op: "src_code P t ! ?k = Op a0 r0 x0" and ra: "rrmw_op a0"
        using a ut kk by (auto simp: rrmw_def ins_def)
      have "dinv ?xs ?n" using vdinv[OF vis op] ra by blast
      then have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp t wa ku unfolding rp_ok_def by blast
      then show ?thesis using ft da ut by blast
    qed
  qed
qed

section \<open>What an all-devices release hands over reaches memory\<close>

text \<open>[RSP15] sec. 5.2 one level down: an all-devices release flushes its
  L1 and then its device's L2 before it stores (hrf's rows `FLUL1 WG;
  FLUL2 DV; ST`, and the remote all-devices store's), so that every write
  it knew has reached memory, where another device's acquire finds it.\<close>

subsection \<open>Flushes of the L2 and the rows that need them\<close>

fun flul2 :: "instr \<Rightarrow> bool" where
  "flul2 (FLUL2 _) = True"
| "flul2 _ = False"

text \<open>Position n of a code comes after a flush of the L2 that itself comes
  after a flush of the L1, with only quiet instructions between.\<close>
definition flushed2 :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "flushed2 xs n \<longleftrightarrow> (\<exists>j < n. flul2 (xs ! j) \<and> flushed xs j \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m)))"

lemma flul2_quiet: "flul2 i \<Longrightarrow> quiet i"
  by (cases i) auto

lemma flushed2_Suc:
  assumes "flushed2 xs (Suc n)"
  shows "(flushed2 xs n \<and> quiet (xs ! n)) \<or> (flul2 (xs ! n) \<and> flushed xs n)"
proof -
  obtain j where j: "j < Suc n" "flul2 (xs ! j)" "flushed xs j" "\<forall>m. j < m \<and> m < Suc n \<longrightarrow> quiet (xs ! m)"
    using assms unfolding flushed2_def by blast
  show ?thesis
  proof (cases "j = n")
    case True
    then show ?thesis using j by simp
  next
    case False
    then have "j < n" using j(1) by simp
    then show ?thesis unfolding flushed2_def using j by (intro disjI1 conjI exI[of _ j]) auto
  qed
qed

lemma flushed2_append: "flushed2 ys m \<Longrightarrow> flushed2 (xs @ ys) (length xs + m)"
proof -
  assume "flushed2 ys m"
  then obtain j where j: "j < m" "flul2 (ys ! j)" "flushed ys j" "\<forall>k. j < k \<and> k < m \<longrightarrow> quiet (ys ! k)"
    unfolding flushed2_def by blast
  have "quiet ((xs @ ys) ! k)" if "length xs + j < k" "k < length xs + m" for k
  proof -
    have "(xs @ ys) ! k = ys ! (k - length xs)" using that by (simp add: nth_append)
    moreover have "j < k - length xs" "k - length xs < m" using that by auto
    ultimately show ?thesis using j(4) by simp
  qed
  moreover have "flul2 ((xs @ ys) ! (length xs + j))" using j(2) by simp
  moreover have "flushed (xs @ ys) (length xs + j)" using flushed_append[OF j(3)] .
  ultimately show ?thesis unfolding flushed2_def using j(1) by (intro exI[of _ "length xs + j"]) auto
qed

lemma flushed2_prefix: "flushed2 xs n \<Longrightarrow> n < length xs \<Longrightarrow> flushed2 (xs @ ys) n"
  unfolding flushed2_def by (auto simp: nth_append intro: flushed_prefix)

text \<open>An all-devices store.\<close>
fun sys_st_op :: "src_op \<Rightarrow> bool" where
  "sys_st_op (Store sc rm) = (sc = AllDevices)"
| "sys_st_op _ = False"

definition vis_flushed2 :: "row \<Rightarrow> bool" where
  "vis_flushed2 rw \<longleftrightarrow> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> flushed2 (rw r x) m)"

text \<open>Every flush of the L2 comes after a flush of the L1 (the L1's writes
  first reach the L2, then memory), and an all-devices store after both;
  and no row is an RMW at all-devices scope (the machine has no RMW at
  memory).\<close>
definition mem_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "mem_rows S A \<longleftrightarrow> (\<forall>a \<in> A. (\<exists>rw. S a = Some rw \<and> (\<forall>r x. flq flul2 False (rw r x)) \<and> (sys_st_op a \<longrightarrow> vis_flushed2 rw))
     \<and> (\<forall>rm. a \<noteq> FetchInc AllDevices rm))"

lemma mem_rows_no_sys_rmw: "mem_rows S A \<Longrightarrow> \<forall>a \<in> A. \<forall>rm. a \<noteq> FetchInc AllDevices rm"
  by (simp add: mem_rows_def)

lemmas mem_simps = mem_rows_def vis_flushed2_def flushed2_def flushed_def numeral_eq_Suc All_less_Suc
  Ex_less_Suc all_between_Suc

lemma compiled_fl2:
  assumes rows: "mem_rows S A" "\<forall>i \<in> set c. op_of i \<subseteq> A"
    and n: "n < length (concat (map (compile_instr S) c))" "flul2 (concat (map (compile_instr S) c) ! n)"
  shows "flushed (concat (map (compile_instr S) c)) n"
proof -
  have "flq flul2 False (compile_instr S i)" if "i \<in> set c" for i
  proof (cases i)
    case (Op a r x)
    then have "a \<in> A" using rows(2) that by (auto simp: op_of_def)
    then obtain rw where "S a = Some rw" "\<forall>r x. flq flul2 False (rw r x)" using rows(1) by (auto simp: mem_rows_def)
    then show ?thesis using Op by (simp add: compile_instr_def)
  next
    case (SetReg r v)
    then show ?thesis by (simp add: compile_instr_def)
  qed
  then have "flq flul2 False (concat (map (compile_instr S) c))"
    by (induction c) (auto intro: flq_append)
  then show ?thesis using flq_flushed[of flul2 False _ n] n by simp
qed

lemma compiled_vis_flushed2:
  assumes rows: "l1_rows S A" "l2_rows S B" "mem_rows S (A \<union> B)" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x" "sys_st_op a"
  shows "flushed2 (concat (map (compile_instr S) c)) n"
proof -
  obtain rw pre post m where rw: "a \<in> A \<union> B" "S a = Some rw" "concat (map (compile_instr S) c) = pre @ rw r x @ post"
      "n = length pre + m" "m < length (rw r x)" "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "vis_flushed2 rw" using rows(3) w(2) rw(1,2) by (auto simp: mem_rows_def)
  then have "flushed2 (rw r x) m" using rw(5,6) unfolding vis_flushed2_def by blast
  then have "flushed2 (rw r x @ post) m" using flushed2_prefix rw(5) by blast
  then show ?thesis using flushed2_append[of "rw r x @ post" m pre] rw(3,4) by simp
qed

subsection \<open>What a thread step adds to the L2 fifos\<close>

definition l2_new :: "layout \<Rightarrow> tid \<Rightarrow> instr \<Rightarrow> did \<Rightarrow> fifo_el list" where
  "l2_new L t i d = (case i of INCL2 r x \<Rightarrow> if d = dev_of L (wg_of L t) then [Addr x] else []
     | FLUL2 sc \<Rightarrow> if d \<in> devs_in L sc (dev_of L (wg_of L t)) then [Flush t] else [] | _ \<Rightarrow> [])"

lemma exec_l2_fifo:
  assumes "exec L t i s = Some z"
  shows "l2_fifo z d = l2_fifo s d @ l2_new L t i d"
  using assms by (cases i) (auto simp: l2_new_def Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def
      split: if_splits)

lemma l2_new_flush: "Flush u \<in> set (l2_new L t i d) \<Longrightarrow> u = t \<and> (\<exists>sc. i = FLUL2 sc)"
  by (cases i) (auto simp: l2_new_def split: if_splits)

lemma l2_new_own:
  assumes wp: "well_placed L P" and t: "t \<in> src_threads P"
  shows "Flush t \<in> set (l2_new L t (FLUL2 sc) (dev_of L (wg_of L t)))"
proof -
  have "dev_of L (wg_of L t) \<in> devs L" using wp t by (simp add: well_placed_def)
  then show ?thesis by (cases sc) (auto simp: l2_new_def devs_in_def)
qed

lemma l2_new_addr: "Addr y \<in> set (l2_new L t i d) \<Longrightarrow> \<exists>r. i = INCL2 r y \<and> d = dev_of L (wg_of L t)"
  by (cases i) (auto simp: l2_new_def split: if_splits)

text \<open>A write waits in an L2 of the layout.\<close>
lemma pend2_devs:
  assumes wp: "well_placed L P" and e: "e \<in> pend2 L S P s g d x"
  shows "d \<in> devs L"
proof -
  obtain w where w: "ewg L e = Some w" "dev_of L w = d" using e by (auto simp: pend2_def)
  have "w \<in> wgs L" using wx_wgs[OF wp _ w(1)] e by (auto simp: pend2_def)
  then show ?thesis using wp w(2) by (auto simp: well_placed_def)
qed

lemma pend1_devs:
  assumes wp: "well_placed L P" and e: "e \<in> pend1 L S P s g w x"
  shows "dev_of L w \<in> devs L"
proof -
  have "w \<in> wgs L" using wx_wgs[OF wp _] e by (auto simp: pend1_def)
  then show ?thesis using wp by (auto simp: well_placed_def)
qed

subsection \<open>The invariant\<close>

text \<open>An all-devices store of thread t at position k.\<close>
definition sys_store :: "src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "sys_store P t k \<longleftrightarrow> (\<exists>a r x. ins P t k = Op a r x \<and> sys_st_op a)"

text \<open>[RSP15] sec. 5.2's FLUSH markers one level down: a write waiting in an
  L2 has its address in the L2's fifo ahead of every marker of each thread
  that knows it; a thread with a marker in an L2 fifo knows only writes
  that have reached an L2; past a flush of the L2 (after one of the L1),
  what a thread knows has reached an L2 and, while it waits in the
  thread's device's L2, the thread's marker waits there too; and what a
  performed all-devices store knew, other than itself, has reached memory.\<close>
definition mr_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "mr_ok L S P s g \<longleftrightarrow>
     (\<forall>d x e. e \<in> pend2 L S P s g d x \<longrightarrow> (\<exists>i < length (l2_fifo s d). l2_fifo s d ! i = Addr x
        \<and> (\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s d ! j \<noteq> Flush u)))
   \<and> (\<forall>u d x e. d \<in> devs L \<and> Flush u \<in> set (l2_fifo s d) \<and> wx S P s x e \<and> knows L S P s g u e
        \<longrightarrow> ga2 g e \<noteq> None)
   \<and> (\<forall>t \<in> src_threads P. flushed2 (instrs (compile S P) t) (pc s t) \<longrightarrow>
        (\<forall>x e. wx S P s x e \<and> knows L S P s g t e \<longrightarrow> ga2 g e \<noteq> None)
      \<and> (\<forall>x e. e \<in> pend2 L S P s g (dev_of L (wg_of L t)) x \<and> knows L S P s g t e
           \<longrightarrow> Flush t \<in> set (l2_fifo s (dev_of L (wg_of L t)))))
   \<and> (\<forall>t k a. sys_store P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s (Acc t k False)
        \<and> knows_at L P g (Acc t k False) a \<and> a \<noteq> Acc t k False
        \<longrightarrow> ga3 g a \<noteq> None)"

lemma mr_ok_initial: "mr_ok L S P (initial (src_init P)) (ghost0 P)"
proof -
  have "pend2 L S P (initial (src_init P)) (ghost0 P) d x = {}" for d x
    by (auto simp: pend2_def wx_initial)
  moreover have "flushed2 xs 0 = False" for xs by (simp add: flushed2_def)
  moreover have "\<not> done_ev S P (initial (src_init P)) (Acc t k p)" for t k p by simp
  ultimately show ?thesis by (simp add: mr_ok_def initial_def)
qed

text \<open>Past such flushes, with its marker gone, a thread knows only writes
  that have reached memory: those not there are of its device
  (kh_ok), and would wait in its L2 ahead of its marker.\<close>
lemma known_flushed2:
  assumes mr: "mr_ok L S P s g" and kh: "kh_ok L S P s g" and t: "t \<in> src_threads P" and wp: "well_placed L P"
    and fl: "flushed2 (instrs (compile S P) t) (pc s t)" and nu: "\<not> unflushed L s t"
    and a: "wx S P s y a" "knows L S P s g t a"
  shows "ga3 g a \<noteq> None"
proof
  assume a3: "ga3 g a = None"
  have a2: "ga2 g a \<noteq> None" using mr t fl a unfolding mr_ok_def by blast
  have "dv L a = Some (dev_of L (wg_of L t))" using kh t a a3 unfolding kh_ok_def by blast
  then have "a \<in> pend2 L S P s g (dev_of L (wg_of L t)) y" using a(1) a2 a3 by (simp add: pend2_def dv_def)
  then have "Flush t \<in> set (l2_fifo s (dev_of L (wg_of L t)))" using mr t fl a(2) unfolding mr_ok_def by blast
  moreover have "dev_of L (wg_of L t) \<in> devs L" using wp t by (simp add: well_placed_def)
  ultimately show False using nu by (auto simp: unflushed_def)
qed

text \<open>So what an all-devices write knew, its own excepted, has reached
  memory: such a write is a store, no row being an RMW at all-devices
  scope.\<close>
lemma mr_sys:
  assumes mr: "mr_ok L S P s g" and rows: "mem_rows S A" "ops_of P \<subseteq> A"
  shows "\<forall>y a. done_ev S P s y \<and> is_wr P y \<and> sys_ev P y \<and> knows_at L P g y a \<and> a \<noteq> y \<longrightarrow> ga3 g a \<noteq> None"
proof (intro allI impI)
  fix y a assume h: "done_ev S P s y \<and> is_wr P y \<and> sys_ev P y \<and> knows_at L P g y a \<and> a \<noteq> y"
  obtain u j p where yu: "y = Acc u j p" using h by (cases y) (auto simp: sys_ev_def)
  have ac: "acc P u j p" "wr (ins P u j) p" "op_scope (ins P u j) = AllDevices" using h yu by (auto simp: sys_ev_def)
  obtain a0 r0 x0 where op: "ins P u j = Op a0 r0 x0" using ac(2) by (cases "ins P u j") auto
  have tj: "u \<in> src_threads P" "j < length (src_code P u)" using ac(1) by (simp_all add: acc_def)
  have "src_code P u ! j = Op a0 r0 x0" using op tj(2) by (simp add: ins_def)
  then have "a0 \<in> ops_of P" using tj nth_mem[OF tj(2)] unfolding ops_of_def op_of_def by force
  then have a0: "a0 \<in> A" using rows(2) by blast
  have "\<forall>rm. a0 \<noteq> FetchInc AllDevices rm" using rows(1) a0 by (simp add: mem_rows_def)
  then obtain rm where st: "a0 = Store AllDevices rm" and p: "p = False" using ac(2,3) op by (cases a0) auto
  have "sys_store P u j" using op st by (simp add: sys_store_def)
  then show "ga3 g a \<noteq> None" using mr h yu p unfolding mr_ok_def by blast
qed

subsection \<open>Environment steps keep it\<close>

lemma mr_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and fe: "fifo2_env L S P s s' g g'"
    and wp: "well_placed L P" and mr: "mr_ok L S P s g"
  shows "mr_ok L S P s' g'"
proof -
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have kn: "knows L S P s' g' = knows L S P s g" using knows_same[OF pc gr] .
  have ka: "knows_at L P g' = knows_at L P g" unfolding knows_at_def[abs_def] hbm_def swm_def ob_def[abs_def] gr ..
  have ws: "wx S P s' = wx S P s" using wx_same[OF pc] .
  have ds: "done_ev S P s' = done_ev S P s" using done_same[OF pc] .
  have m2: "ga2 g e \<noteq> None \<Longrightarrow> ga2 g' e \<noteq> None" for e using m by (simp add: env_mono_def)
  have m3: "ga3 g e \<noteq> None \<Longrightarrow> ga3 g' e \<noteq> None" for e using m by (simp add: env_mono_def)
  have fi: "\<exists>i < length (l2_fifo s d). l2_fifo s d ! i = Addr x \<and> (\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s d ! j \<noteq> Flush u)"
    if "e \<in> pend2 L S P s g d x" for d x e using mr that unfolding mr_ok_def by blast
  have mk: "ga2 g e \<noteq> None" if "d \<in> devs L" "Flush u \<in> set (l2_fifo s d)" "wx S P s x e" "knows L S P s g u e" for u d x e
    using mr that unfolding mr_ok_def by blast
  have new_none: "ga2 g e = None \<and> wx S P s x e \<and> d \<in> devs L" if "e \<in> pend1 L S P s g w x" "dev_of L w = d" for e w x d
    using that pend1_devs[OF wp that(1)] by (simp add: pend1_def)
  \<comment> \<open>a marker in a fifo after the step was there before\<close>
  have old_mark: "Flush u \<in> set (l2_fifo s d)" if "Flush u \<in> set (l2_fifo s' d)" for u d
    using fe[unfolded fifo2_env_def fifo2_at_def, rule_format, of d] that by auto
  show ?thesis
    unfolding mr_ok_def
  proof (intro conjI allI impI ballI)
    fix d x e assume e: "e \<in> pend2 L S P s' g' d x"
    from fe[unfolded fifo2_env_def fifo2_at_def, rule_format, of d] show "\<exists>i < length (l2_fifo s' d). l2_fifo s' d ! i = Addr x
        \<and> (\<forall>j < i. \<forall>u. knows L S P s' g' u e \<longrightarrow> l2_fifo s' d ! j \<noteq> Flush u)"
    proof (elim disjE exE conjE)
      assume q: "l2_fifo s' d = l2_fifo s d" and sub: "\<forall>y. pend2 L S P s' g' d y \<subseteq> pend2 L S P s g d y"
      then show ?thesis using fi[of e d x] e kn by auto
    next
      fix e0 assume q: "l2_fifo s d = e0 # l2_fifo s' d" and sub: "\<forall>y. pend2 L S P s' g' d y \<subseteq> pend2 L S P s g d y"
        and emp: "\<forall>y. e0 = Addr y \<longrightarrow> pend2 L S P s' g' d y = {}"
      obtain i where i: "i < length (l2_fifo s d)" "l2_fifo s d ! i = Addr x"
          "\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s d ! j \<noteq> Flush u"
        using fi[of e d x] e sub by blast
      have "i \<noteq> 0" using i(2) q emp e by (cases i) auto
      then obtain i' where i': "i = Suc i'" by (cases i) auto
      have "\<forall>j < i'. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s' d ! j \<noteq> Flush u"
      proof (intro allI impI)
        fix j u assume "j < i'" "knows L S P s g u e"
        then have "l2_fifo s d ! Suc j \<noteq> Flush u" using i(3) i' by simp
        then show "l2_fifo s' d ! j \<noteq> Flush u" using q by simp
      qed
      then show ?thesis using i q i' kn by (intro exI[of _ i']) auto
    next
      fix x0 assume q: "l2_fifo s' d = l2_fifo s d @ [Addr x0]"
        and sub: "\<forall>y. pend2 L S P s' g' d y \<subseteq> pend2 L S P s g d y
          \<union> {e. y = x0 \<and> (\<exists>w. dev_of L w = d \<and> e \<in> pend1 L S P s g w y)}"
      have "e \<in> pend2 L S P s g d x \<or> (x = x0 \<and> (\<exists>w. dev_of L w = d \<and> e \<in> pend1 L S P s g w x))"
        using sub e by blast
      then show ?thesis
      proof
        assume "e \<in> pend2 L S P s g d x"
        then obtain i where i: "i < length (l2_fifo s d)" "l2_fifo s d ! i = Addr x"
            "\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s d ! j \<noteq> Flush u"
          using fi by blast
        then show ?thesis using q kn by (intro exI[of _ i]) (auto simp: nth_append)
      next
        assume "x = x0 \<and> (\<exists>w. dev_of L w = d \<and> e \<in> pend1 L S P s g w x)"
        then obtain w where w: "x = x0" "dev_of L w = d" "e \<in> pend1 L S P s g w x" by blast
        have nn: "ga2 g e = None" "wx S P s x e" "d \<in> devs L" using new_none[OF w(3,2)] by simp_all
        have "l2_fifo s d ! j \<noteq> Flush u" if "j < length (l2_fifo s d)" "knows L S P s g u e" for j u
        proof
          assume "l2_fifo s d ! j = Flush u"
          then have "Flush u \<in> set (l2_fifo s d)" using that(1) nth_mem by metis
          then show False using mk[OF nn(3) _ nn(2) that(2)] nn(1) by blast
        qed
        then show ?thesis using q kn w(1) by (intro exI[of _ "length (l2_fifo s d)"]) (auto simp: nth_append)
      qed
    qed
  next
    fix u d x e assume a: "d \<in> devs L \<and> Flush u \<in> set (l2_fifo s' d) \<and> wx S P s' x e \<and> knows L S P s' g' u e"
    then show "ga2 g' e \<noteq> None" using mk[of d u x e] old_mark ws kn m2 by auto
  next
    fix t x e assume t: "t \<in> src_threads P" and fl: "flushed2 (instrs (compile S P) t) (pc s' t)"
      and a: "wx S P s' x e \<and> knows L S P s' g' t e"
    then show "ga2 g' e \<noteq> None" using mr pc ws kn m2 unfolding mr_ok_def by auto
  next
    fix t x e assume t: "t \<in> src_threads P" and fl: "flushed2 (instrs (compile S P) t) (pc s' t)"
      and a: "e \<in> pend2 L S P s' g' (dev_of L (wg_of L t)) x \<and> knows L S P s' g' t e"
    let ?d = "dev_of L (wg_of L t)"
    have fl0: "flushed2 (instrs (compile S P) t) (pc s t)" using fl pc by simp
    have kt: "knows L S P s g t e" using a kn by simp
    have mk2: "Flush t \<in> set (l2_fifo s ?d)" if "e \<in> pend2 L S P s g ?d x"
      using mr t fl0 kt that unfolding mr_ok_def by blast
    have k2: "ga2 g e \<noteq> None" if "wx S P s x e" using mr t fl0 kt that unfolding mr_ok_def by blast
    from fe[unfolded fifo2_env_def fifo2_at_def, rule_format, of ?d] show "Flush t \<in> set (l2_fifo s' ?d)"
    proof (elim disjE exE conjE)
      assume q: "l2_fifo s' ?d = l2_fifo s ?d" and sub: "\<forall>y. pend2 L S P s' g' ?d y \<subseteq> pend2 L S P s g ?d y"
      then show ?thesis using mk2 a by auto
    next
      fix e0 assume q: "l2_fifo s ?d = e0 # l2_fifo s' ?d" and sub: "\<forall>y. pend2 L S P s' g' ?d y \<subseteq> pend2 L S P s g ?d y"
      have ep: "e \<in> pend2 L S P s g ?d x" using sub a by blast
      obtain i where i: "i < length (l2_fifo s ?d)" "l2_fifo s ?d ! i = Addr x"
          "\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s ?d ! j \<noteq> Flush u"
        using fi[OF ep] by blast
      have "e0 \<noteq> Flush t"
      proof
        assume e0: "e0 = Flush t"
        have "i \<noteq> 0" using i(2) q e0 by (cases i) auto
        then have "l2_fifo s ?d ! 0 \<noteq> Flush t" using i(3) kt by blast
        then show False using q e0 by simp
      qed
      then show ?thesis using mk2[OF ep] q by auto
    next
      fix x0 assume q: "l2_fifo s' ?d = l2_fifo s ?d @ [Addr x0]"
        and sub: "\<forall>y. pend2 L S P s' g' ?d y \<subseteq> pend2 L S P s g ?d y
          \<union> {e. y = x0 \<and> (\<exists>w. dev_of L w = ?d \<and> e \<in> pend1 L S P s g w y)}"
      have "e \<in> pend2 L S P s g ?d x \<or> (\<exists>w. dev_of L w = ?d \<and> e \<in> pend1 L S P s g w x)"
        using sub a by blast
      then show ?thesis
      proof
        assume "e \<in> pend2 L S P s g ?d x"
        then show ?thesis using mk2 q by auto
      next
        assume "\<exists>w. dev_of L w = ?d \<and> e \<in> pend1 L S P s g w x"
        then obtain w where w: "dev_of L w = ?d" "e \<in> pend1 L S P s g w x" by blast
        then show ?thesis using new_none[OF w(2,1)] k2 by blast
      qed
    qed
  next
    fix t k a assume a: "sys_store P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s' (Acc t k False)
        \<and> knows_at L P g' (Acc t k False) a \<and> a \<noteq> Acc t k False"
    then show "ga3 g' a \<noteq> None" using mr ds ka m3 unfolding mr_ok_def by auto
  qed
qed

subsection \<open>Thread steps keep it\<close>

lemma mr_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and kh: "kh_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "mem_rows S (A \<union> B)"
    and wp: "well_placed L P" and gi: "ginv L S P s' g'"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and mr: "mr_ok L S P s g"
  shows "mr_ok L S P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t" and ?d0 = "dev_of L (wg_of L t)"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have new: "(\<exists>p. e = Acc t ?k p) \<and> visible ?i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] .
  have old: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using se(4)[OF that] .
  have dn: "\<forall>e. sthread e \<noteq> Some t \<longrightarrow> done_ev S P s' e \<longrightarrow> done_ev S P s e" using new by fastforce
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(5,6) by (simp add: set_pc_def)
  have fq: "l2_fifo s' d = l2_fifo s d @ l2_new L t ?i d" for d
    using exec_l2_fifo[OF z(2)] z(5) by (simp add: set_pc_def)
  have d0: "?d0 \<in> devs L" using wp t by (simp add: well_placed_def)
  have nm: "Flush t \<notin> set (l2_fifo s d)" if "d \<in> devs L" for d using z(3) that by (auto simp: unflushed_def)
  have kmono: "kd S P s u \<le> kd S P s' u" for u using z(7,8) by (cases "u = t") auto
  have dmono: "done_ev S P s' e" if "done_ev S P s e" for e
    using that kmono by (cases e) (auto intro: less_le_trans)
  have wxo: "wx S P s' x e \<longleftrightarrow> wx S P s x e" if "done_ev S P s e" for x e
    using that dmono by (auto simp: wx_def)
  have p2o: "e \<in> pend2 L S P s' g' d x \<longleftrightarrow> e \<in> pend2 L S P s g d x" if "done_ev S P s e" for e d x
    using wxo[OF that] old[OF that] by (simp add: pend2_def)
  \<comment> \<open>what another thread knows after the step it knew before, of writes performed before\<close>
  have ko: "knows L S P s g u e \<and> done_ev S P s e" if h: "knows L S P s' g' u e" "u \<noteq> t" "done_ev S P s' e" for u e
  proof -
    have ku: "knows L S P s g u e" using knows_new[OF ei gr dn h(1,2)] .
    have "done_ev S P s e"
    proof (rule ccontr)
      assume nd: "\<not> done_ev S P s e"
      then obtain p where "e = Acc t ?k p" using new h(3) by blast
      then show False using knows_old[OF ei ku] h(2) nd by auto
    qed
    then show ?thesis using ku by blast
  qed
  \<comment> \<open>a step that is not visible performs nothing and teaches nothing\<close>
  have qk: "knows L S P s g t e \<and> (done_ev S P s' e \<longrightarrow> done_ev S P s e)" if "\<not> visible ?i" "knows L S P s' g' t e" for e
  proof -
    have dq: "\<forall>e. done_ev S P s' e \<longrightarrow> done_ev S P s e" using new that(1) by blast
    show ?thesis using knows_quiet[OF ei gr dq that(2)] dq by blast
  qed
  have fi: "\<exists>i < length (l2_fifo s d). l2_fifo s d ! i = Addr x \<and> (\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s d ! j \<noteq> Flush u)"
    if "e \<in> pend2 L S P s g d x" for d x e using mr that unfolding mr_ok_def by blast
  \<comment> \<open>past its flush of the L2, a thread's marker waits while a write it knows waits\<close>
  have own: "Flush t \<in> set (l2_fifo s' ?d0)"
    if fs: "flushed2 ?xs (Suc ?n)" and a': "e \<in> pend2 L S P s' g' ?d0 x" "knows L S P s' g' t e" for e x
  proof -
    have nv: "\<not> visible ?i" using flushed2_Suc[OF fs] flul2_quiet quiet_vis by blast
    have ds: "done_ev S P s' e" using a' wx_done by (auto simp: pend2_def)
    have k: "knows L S P s g t e" "done_ev S P s e" using qk[OF nv a'(2)] ds by blast+
    have ep: "e \<in> pend2 L S P s g ?d0 x" using p2o[OF k(2)] a'(1) by blast
    from flushed2_Suc[OF fs] show ?thesis
    proof
      assume "flushed2 ?xs ?n \<and> quiet ?i"
      then have "Flush t \<in> set (l2_fifo s ?d0)" using mr t k(1) ep unfolding mr_ok_def by blast
      then show ?thesis using fq by simp
    next
      assume "flul2 ?i \<and> flushed ?xs ?n"
      then obtain sc where "?i = FLUL2 sc" by (cases ?i) auto
      then show ?thesis using fq l2_new_own[OF wp t, of sc] by simp
    qed
  qed
  show ?thesis
    unfolding mr_ok_def
  proof (intro conjI allI impI ballI)
    fix d x e assume e: "e \<in> pend2 L S P s' g' d x"
    have dd: "d \<in> devs L" using pend2_devs[OF wp e] .
    show "\<exists>i < length (l2_fifo s' d). l2_fifo s' d ! i = Addr x
        \<and> (\<forall>j < i. \<forall>u. knows L S P s' g' u e \<longrightarrow> l2_fifo s' d ! j \<noteq> Flush u)"
    proof (cases "done_ev S P s e")
      case True
      have ep: "e \<in> pend2 L S P s g d x" using e p2o[OF True] by simp
      obtain i where i: "i < length (l2_fifo s d)" "l2_fifo s d ! i = Addr x"
          "\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l2_fifo s d ! j \<noteq> Flush u"
        using fi[OF ep] by blast
      have "l2_fifo s' d ! j \<noteq> Flush u" if "j < i" "knows L S P s' g' u e" for j u
      proof
        assume f: "l2_fifo s' d ! j = Flush u"
        then have fj: "l2_fifo s d ! j = Flush u" using fq that(1) i(1) by (simp add: nth_append)
        then have "u \<noteq> t" using nm[OF dd] that(1) i(1) by (metis nth_mem order.strict_trans)
        then have "knows L S P s g u e" using ko that(2) True dmono by blast
        then show False using i(3) that(1) fj by blast
      qed
      then show ?thesis using i fq by (intro exI[of _ i]) (auto simp: nth_append)
    next
      case False
      have ds: "done_ev S P s' e" using e wx_done by (auto simp: pend2_def)
      obtain p where ep: "e = Acc t ?k p" using new[OF ds False] by blast
      have we: "is_wr P e" and a2: "ga2 g' e \<noteq> None" using e by (auto simp: pend2_def wx_def)
      obtain y0 where y0: "sloc P e = Some y0" "(\<exists>r. ?i = INCL2 r y0) \<and> ga2 g' e = Some (gt g' e)
          \<or> ga2 g' e = None"
        using se(7)[OF we ds False] by blast
      have i2: "\<exists>r. ?i = INCL2 r y0" using y0(2) a2 by blast
      have "x = y0" using e y0(1) wx_loc by (auto simp: pend2_def)
      moreover have "d = ?d0" using e ep by (auto simp: pend2_def)
      ultimately have ln: "l2_new L t ?i d = [Addr x]" using i2 by (auto simp: l2_new_def)
      have "l2_fifo s' d ! j \<noteq> Flush u" if "j < length (l2_fifo s d)" "knows L S P s' g' u e" for j u
      proof
        assume f: "l2_fifo s' d ! j = Flush u"
        then have fj: "l2_fifo s d ! j = Flush u" using fq that(1) by (simp add: nth_append)
        have "u = t"
        proof (rule ccontr)
          assume "u \<noteq> t"
          then show False using ko[OF that(2) _ ds] False by blast
        qed
        then show False using nm[OF dd] fj that(1) by (metis nth_mem)
      qed
      then show ?thesis using fq ln by (intro exI[of _ "length (l2_fifo s d)"]) (auto simp: nth_append)
    qed
  next
    fix u d x e assume a: "d \<in> devs L \<and> Flush u \<in> set (l2_fifo s' d) \<and> wx S P s' x e \<and> knows L S P s' g' u e"
    have ds: "done_ev S P s' e" using a wx_done by blast
    from a fq consider (was) "Flush u \<in> set (l2_fifo s d)" | (nw) "Flush u \<in> set (l2_new L t ?i d)" by auto
    then show "ga2 g' e \<noteq> None"
    proof cases
      case was
      then have "u \<noteq> t" using nm a by blast
      then have k: "knows L S P s g u e" "done_ev S P s e" using ko a ds by blast+
      then have "ga2 g e \<noteq> None" using mr a was wxo[OF k(2)] unfolding mr_ok_def by blast
      then show ?thesis using old[OF k(2)] by simp
    next
      case nw
      obtain sc where ut: "u = t" and i: "?i = FLUL2 sc" using l2_new_flush[OF nw] by blast
      have nv: "\<not> visible ?i" using i by simp
      have k: "knows L S P s g t e" "done_ev S P s e" using qk[OF nv] a ut ds by blast+
      have fl: "flushed ?xs ?n"
      proof -
        have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
        have xs: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
        show ?thesis using compiled_fl2[OF rows(4) ops, of ?n] z(1) i xs by simp
      qed
      have "ga2 g e \<noteq> None" using known_flushed[OF oi kh t wp fl z(3) _ k(1)] wxo[OF k(2)] a by blast
      then show ?thesis using old[OF k(2)] by simp
    qed
  next
    fix u x e assume u: "u \<in> src_threads P" and fl: "flushed2 (instrs (compile S P) u) (pc s' u)"
      and a: "wx S P s' x e \<and> knows L S P s' g' u e"
    have ds: "done_ev S P s' e" using a wx_done by blast
    show "ga2 g' e \<noteq> None"
    proof (cases "u = t")
      case False
      have k: "knows L S P s g u e" "done_ev S P s e" using ko a ds False by blast+
      have "flushed2 (instrs (compile S P) u) (pc s u)" using fl pc' False by simp
      then have "ga2 g e \<noteq> None" using mr u k(1) wxo[OF k(2)] a unfolding mr_ok_def by blast
      then show ?thesis using old[OF k(2)] by simp
    next
      case True
      have fs: "flushed2 ?xs (Suc ?n)" using fl pc' True by simp
      have nv: "\<not> visible ?i" using flushed2_Suc[OF fs] flul2_quiet quiet_vis by blast
      have k: "knows L S P s g t e" "done_ev S P s e" using qk[OF nv] a True ds by blast+
      have wa: "wx S P s x e" using wxo[OF k(2)] a by blast
      from flushed2_Suc[OF fs] have "ga2 g e \<noteq> None"
      proof
        assume "flushed2 ?xs ?n \<and> quiet ?i"
        then show ?thesis using mr t k(1) wa unfolding mr_ok_def by blast
      next
        assume "flul2 ?i \<and> flushed ?xs ?n"
        then show ?thesis using known_flushed[OF oi kh t wp _ z(3) wa k(1)] by blast
      qed
      then show ?thesis using old[OF k(2)] by simp
    qed
  next
    fix u x e assume u: "u \<in> src_threads P" and fl: "flushed2 (instrs (compile S P) u) (pc s' u)"
      and a: "e \<in> pend2 L S P s' g' (dev_of L (wg_of L u)) x \<and> knows L S P s' g' u e"
    let ?d = "dev_of L (wg_of L u)"
    have ds: "done_ev S P s' e" using a wx_done by (auto simp: pend2_def)
    show "Flush u \<in> set (l2_fifo s' ?d)"
    proof (cases "u = t")
      case False
      have k: "knows L S P s g u e" "done_ev S P s e" using ko a ds False by blast+
      have "flushed2 (instrs (compile S P) u) (pc s u)" using fl pc' False by simp
      then have "Flush u \<in> set (l2_fifo s ?d)" using mr u k(1) p2o[OF k(2)] a unfolding mr_ok_def by blast
      then show ?thesis using fq by simp
    next
      case True
      have fs: "flushed2 ?xs (Suc ?n)" using fl pc' True by simp
      have nv: "\<not> visible ?i" using flushed2_Suc[OF fs] flul2_quiet quiet_vis by blast
      then show ?thesis using own[OF fs, of e x] a True by simp
    qed
  next
    fix u k a assume a: "sys_store P u k \<and> is_wr P (Acc u k False) \<and> done_ev S P s' (Acc u k False)
        \<and> knows_at L P g' (Acc u k False) a \<and> a \<noteq> Acc u k False"
    let ?w = "Acc u k False"
    show "ga3 g' a \<noteq> None"
    proof (cases "done_ev S P s ?w")
      case True
      have "knows_at L P g ?w a" using knows_at_keep[OF ei gr True] a by simp
      then have "ga3 g a \<noteq> None" "done_ev S P s a"
        using mr a True knows_at_done[OF ei True] unfolding mr_ok_def by blast+
      then show ?thesis using old by simp
    next
      case nw: False
      obtain p where wk: "?w = Acc t ?k p" and vis: "visible ?i" using new a nw by blast
      have ut: "u = t" and kk: "k = ?k" using wk by simp_all
      have nrw: "\<not> is_rd P ?w" using a by (auto dest: rd_wr)
      have kn: "knows L S P s g t a \<and> done_ev S P s a \<and> (\<exists>x. wx S P s x a)"
        using store_knew[OF inv gi t st rows(1-3) gs gv] a nrw nw ut by blast
      obtain x where wa: "wx S P s x a" using kn by blast
      obtain a0 r0 x0 where op: "src_code P t ! ?k = Op a0 r0 x0" and sa: "sys_st_op a0"
        using a ut kk by (auto simp: sys_store_def ins_def)
      have f2: "flushed2 ?xs ?n"
      proof -
        have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
        have xs: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
        have "flushed2 (concat (map (compile_instr S) (src_code P t))) ?n"
          by (rule compiled_vis_flushed2[OF rows(1,2,4) ops _ _ _ op sa]) (use z(1) vis xs in \<open>simp_all add: kd_def\<close>)
        then show ?thesis using xs by simp
      qed
      have "ga3 g a \<noteq> None" using known_flushed2[OF mr kh t wp f2 z(3) wa] kn by blast
      then show ?thesis using old kn by simp
    qed
  qed
qed

section \<open>Thread steps keep what a release hands over\<close>

subsection \<open>What a work-group that reads a location below device scope finds\<close>

text \<open>Happens-before is acyclic on a performed event: a cycle through a
  synchronisation edge would put a write before itself (kw_ok), and
  program order alone has none.\<close>
lemma trancl_union_split:
  "(a, c) \<in> (A \<union> B)\<^sup>+ \<Longrightarrow> (a, c) \<in> A\<^sup>+ \<or> (\<exists>x y. (a, x) \<in> (A \<union> B)\<^sup>* \<and> (x, y) \<in> B \<and> (y, c) \<in> (A \<union> B)\<^sup>*)"
proof (induction rule: trancl_induct)
  case (base y)
  then show ?case by blast
next
  case (step y z)
  show ?case
  proof (cases "(y, z) \<in> B")
    case True
    then show ?thesis using step(1) by (blast dest: trancl_into_rtrancl)
  next
    case False
    then have yz: "(y, z) \<in> A" using step(2) by blast
    from step(3) show ?thesis
    proof
      assume "(a, y) \<in> A\<^sup>+"
      then show ?thesis using yz by (blast intro: trancl_into_trancl)
    next
      assume "\<exists>x y'. (a, x) \<in> (A \<union> B)\<^sup>* \<and> (x, y') \<in> B \<and> (y', y) \<in> (A \<union> B)\<^sup>*"
      then obtain x y' where "(a, x) \<in> (A \<union> B)\<^sup>*" "(x, y') \<in> B" "(y', y) \<in> (A \<union> B)\<^sup>*" by blast
      moreover have "(y', z) \<in> (A \<union> B)\<^sup>*" using calculation(3) yz by (blast intro: rtrancl_into_rtrancl)
      ultimately show ?thesis by blast
    qed
  qed
qed

lemma hbm_irrefl:
  assumes ei: "ev_inv S P s g" and kw: "kw_ok L S P s g" and h: "(a, a) \<in> hbm L P g" and d: "done_ev S P s a"
  shows False
proof -
  let ?R = "src_po P \<union> swm L P g"
  from trancl_union_split[OF h[unfolded hbm_def]] show False
  proof
    assume "(a, a) \<in> (src_po P)\<^sup>+"
    then show False using trancl_id[OF src_po_trans] src_po_irrefl by simp
  next
    assume "\<exists>x y. (a, x) \<in> ?R\<^sup>* \<and> (x, y) \<in> swm L P g \<and> (y, a) \<in> ?R\<^sup>*"
    then obtain x y where xy: "(a, x) \<in> ?R\<^sup>*" "(x, y) \<in> swm L P g" "(y, a) \<in> ?R\<^sup>*" by blast
    have dy: "done_ev S P s y"
      using xy(3) hbm_done[OF ei _ d] d unfolding hbm_def by (auto simp: rtrancl_eq_or_trancl)
    have ry: "is_rd P y" "grf g y = x" using xy(2) by (auto simp: swm_def)
    have wx: "is_wr P x" "done_ev S P s x" using ev_parts(2)[OF ei] ry dy by auto
    have "(x, a) \<in> ?R\<^sup>+" using xy(2,3) by (blast intro: rtrancl_into_trancl2)
    then have "(x, x) \<in> hbm L P g" using xy(1) unfolding hbm_def by (blast intro: trancl_rtrancl_trancl)
    then have "ob P g x \<noteq> x" using kw wx unfolding kw_ok_def by blast
    then show False using ob_wr[OF wx(1)] by simp
  qed
qed

text \<open>The last edge of a happens-before path.\<close>
lemma hbm_last:
  assumes "(b, c) \<in> hbm L P g"
  shows "\<exists>e. (b = e \<or> (b, e) \<in> hbm L P g) \<and> (e, c) \<in> src_po P \<union> swm L P g"
  using assms unfolding hbm_def by (blast elim: tranclE)

lemma hbm_not_Init: "(b, Init x) \<notin> hbm L P g"
proof
  assume "(b, Init x) \<in> hbm L P g"
  then obtain e where "(e, Init x) \<in> src_po P \<union> swm L P g" using hbm_last by blast
  then show False by (auto simp: src_po_def swm_def)
qed

text \<open>A program of finitely many threads has finitely many events.\<close>
lemma finite_src_events:
  assumes "finite (src_threads P)"
  shows "finite (Collect (is_ev P))"
proof -
  let ?A = "SIGMA t:src_threads P. {..<length (src_code P t)}"
  have fa: "finite ?A" using assms by (rule finite_SigmaI) simp
  have "src_locs P \<subseteq> (\<lambda>(t, i). the (addr_of (ins P t i))) ` ?A"
  proof
    fix x assume "x \<in> src_locs P"
    then obtain t i where ti: "t \<in> src_threads P" "i < length (src_code P t)" "addr_of (ins P t i) = Some x"
      by (auto simp: src_locs_def)
    show "x \<in> (\<lambda>(t, i). the (addr_of (ins P t i))) ` ?A"
      by (rule image_eqI[where x="(t, i)"]) (use ti in simp_all)
  qed
  then have fl: "finite (src_locs P)" using fa finite_surj by blast
  have "Collect (is_ev P) \<subseteq> Init ` src_locs P \<union> (\<lambda>((t, i), p). Acc t i p) ` (?A \<times> (UNIV :: bool set))"
  proof
    fix e assume "e \<in> Collect (is_ev P)"
    then have ev: "is_ev P e" by simp
    show "e \<in> Init ` src_locs P \<union> (\<lambda>((t, i), p). Acc t i p) ` (?A \<times> (UNIV :: bool set))"
    proof (cases e)
      case (Init x)
      then show ?thesis using ev by simp
    next
      case (Acc t i p)
      then have "acc P t i p" using ev by simp
      then have "((t, i), p) \<in> ?A \<times> (UNIV :: bool set)" by (simp add: acc_def)
      then have "e \<in> (\<lambda>((t, i), p). Acc t i p) ` (?A \<times> (UNIV :: bool set))"
        using Acc by (simp add: image_iff)
      then show ?thesis by blast
    qed
  qed
  moreover have "finite (?A \<times> (UNIV :: bool set))" using fa by simp
  ultimately show ?thesis using fl by (meson finite_Un finite_imageI finite_subset)
qed

text \<open>Happens-before into performed events is well-founded.\<close>
lemma hbm_wf:
  assumes ei: "ev_inv S P s g" and kw: "kw_ok L S P s g" and fin: "finite (src_threads P)"
  shows "wf {(w1, w). (w1, w) \<in> hbm L P g \<and> done_ev S P s w \<and> is_ev P w1 \<and> is_ev P w}"
proof -
  let ?R = "{(w1, w). (w1, w) \<in> hbm L P g \<and> done_ev S P s w \<and> is_ev P w1 \<and> is_ev P w}"
  have "finite ?R"
    by (rule finite_subset[of _ "Collect (is_ev P) \<times> Collect (is_ev P)"]) (use finite_src_events[OF fin] in auto)
  moreover have "(a, b) \<in> hbm L P g \<and> done_ev S P s b" if "(a, b) \<in> ?R\<^sup>+" for a b
    using that
  proof (induction rule: trancl_induct)
    case (base y)
    then show ?case by simp
  next
    case (step y z)
    then show ?case unfolding hbm_def by (auto intro: trancl_trans)
  qed
  then have "acyclic ?R" unfolding acyclic_def using hbm_irrefl[OF ei kw] by blast
  ultimately show ?thesis by (rule finite_acyclic_wf)
qed

text \<open>What a write of x knows of another location is settled before the
  readable lines of a work-group that reads x below device scope ([RSP15]
  sec. 5.1): race freedom makes every write of x of another work-group a
  remote store or a remote RMW, whose knowledge is fresh in every L1 of
  its device (rp_ok), but for the write it read, which is of x; and what
  the work-group's own writes of x knew, before their access, is settled
  before its lines (kl_ok). Along the writes of x each read, by
  well-founded induction.\<close>
lemma wg_reader_settled:
  assumes ei: "ev_inv S P s g" and kw: "kw_ok L S P s g" and kl: "kl_ok L S P s g" and rp: "rp_ok L S P s g"
    and sc: "scoped_conflicts L P" and ds: "dev_sys L P" and wp: "well_placed L P"
    and r: "is_rd P r" "\<not> wide_ev P r" "sloc P r = Some x" "ewg L r = Some v"
    and ya: "sloc P a = Some y" "y \<noteq> x" and rl: "readable (l1 s v y)"
  shows "wx S P s x w \<longrightarrow> knows_at L P g w a \<longrightarrow> sb L g a (h1 g v y)"
proof -
  have fin: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  obtain t' k' where rt: "r = Acc t' k' False" using r(1) by (cases r) (auto dest: rd_part)
  have vw: "v \<in> wgs L" using r(1,4) rt wp by (auto simp: acc_def well_placed_def)
  show ?thesis
    using hbm_wf[OF ei kw fin]
  proof (induction w rule: wf_induct_rule)
    case (less w)
    show ?case
    proof (intro impI)
      assume w: "wx S P s x w" and ka: "knows_at L P g w a"
      have dw: "done_ev S P s w" using wx_done[OF w] .
      have wa: "wx S P s y a" using knows_at_wx[OF ei dw ka ya(1)] .
      have na: "a \<noteq> w" using wx_loc[OF w] ya by auto
      obtain b where b: "is_wr P b \<or> is_rd P b" "b = w \<or> (b, w) \<in> hbm L P g" "ob P g b = a"
        using ka unfolding knows_at_def by blast
      have obw: "ob P g w = w" using w by (cases w) (auto simp: ob_def wx_def dest: rd_wr)
      have bw: "(b, w) \<in> hbm L P g" using b(2,3) obw na by auto
      obtain u k p where wk: "w = Acc u k p" using bw hbm_not_Init by (cases w) auto
      have ww: "is_wr P w" "sloc P w = Some x" using w wk by (auto simp: wx_def)
      have u: "u \<in> src_threads P" using ww(1) wk by (simp add: acc_def)
      have kd: "k < kd S P s u" using dw wk by simp
      have "\<not> sys_ev P r" using r(2) rt by (simp add: sys_ev_def wide_ev_def)
      then have "dv L w = dv L r" using dv_sys[OF ds ww(1) disjI1[OF r(1)]] ww(2) r(3,4) wk by simp
      then have dev: "dev_of L v = dev_of L (wg_of L u)" using wk r(4) by (simp add: dv_def)
      have fr: "sb L g a (h1 g v y)" if "fresh L S P s g (dev_of L (wg_of L u)) a"
        using that vw dev rl wa unfolding fresh_def by blast
      \<comment> \<open>what the write knows: what its thread knew before its operation, or
        what the write its read part read knew\<close>
      have main: "sb L g a (h1 g v y)"
        if early: "\<And>j q. j < k \<Longrightarrow> knows_at L P g (Acc u j q) a \<Longrightarrow> sb L g a (h1 g v y)"
      proof -
        obtain e where e: "b = e \<or> (b, e) \<in> hbm L P g" "(e, w) \<in> src_po P \<union> swm L P g"
          using hbm_last[OF bw] by blast
        have "(e, w) \<notin> swm L P g" using ww(1) rd_not_wr by (auto simp: swm_def)
        then obtain j q where ej: "e = Acc u j q" "acc P u j q" "j < k \<or> (j = k \<and> \<not> q \<and> p)"
          using e(2) wk by (auto simp: src_po_def)
        have ke: "knows_at L P g e a" unfolding knows_at_def using b(1,3) e(1) by blast
        show ?thesis
        proof (cases "j < k")
          case True
          then show ?thesis using early ke ej(1) True by blast
        next
          case False
          then have jk: "j = k" "\<not> q" "p" using ej(3) by auto
          have re: "is_rd P e" using ej(1,2) jk ww(1) wk by (auto simp: acc_def dest: wr_part)
          have de: "done_ev S P s e" using ej(1) jk kd by simp
          have se: "sloc P e = Some x" using ej(1) jk ww(2) wk by simp
          have "b \<noteq> e"
          proof
            assume "b = e"
            then have "a = grf g e" using b(3) re by (simp add: ob_def)
            then show False using ev_parts(2)[OF ei] re de se ya by auto
          qed
          then have be: "(b, e) \<in> hbm L P g" using e(1) by blast
          obtain e' where e': "b = e' \<or> (b, e') \<in> hbm L P g" "(e', e) \<in> src_po P \<union> swm L P g"
            using hbm_last[OF be] by blast
          show ?thesis
          proof (cases "(e', e) \<in> swm L P g")
            case True
            \<comment> \<open>the write of x the read part read\<close>
            have w1: "e' = grf g e" using True by (simp add: swm_def)
            have wx1: "wx S P s x e'" using ev_parts(2)[OF ei] re de se w1 by (auto simp: wx_def)
            have k1: "knows_at L P g e' a" unfolding knows_at_def using b(1,3) e'(1) by blast
            have "(e', w) \<in> hbm L P g"
              using True e(2) unfolding hbm_def by (blast intro: trancl_into_trancl r_into_trancl)
            moreover have "is_ev P e'" using ev_parts(2)[OF ei] re de w1 ev_of by blast
            ultimately have "(e', w) \<in> {(w1, w). (w1, w) \<in> hbm L P g \<and> done_ev S P s w \<and> is_ev P w1 \<and> is_ev P w}"
              using dw ev_of[of P w] ww(1) by simp
            then show ?thesis using less wx1 k1 by blast
          next
            case False
            then obtain j' q' where "e' = Acc u j' q'" "j' < k"
              using e'(2) ej(1) jk by (auto simp: src_po_def)
            moreover have "knows_at L P g e' a" unfolding knows_at_def using b(1,3) e'(1) by blast
            ultimately show ?thesis using early by blast
          qed
        qed
      qed
      show "sb L g a (h1 g v y)"
      proof (cases "wg_of L u = v")
        case True
        \<comment> \<open>a write of the work-group: what its thread knew before is not exempt\<close>
        show ?thesis
        proof (rule main)
          fix j q assume j: "j < k" and kj: "knows_at L P g (Acc u j q) a"
          have "\<not> exempt L S P s (Acc u j q) a" using j kd unfolding exempt_def by auto
          moreover have "done_ev S P s (Acc u j q)" using j kd by simp
          ultimately show "sb L g a (h1 g v y)" using kl u kj wa rl True unfolding kl_ok_def by fastforce
        qed
      next
        case False
        \<comment> \<open>a write of another work-group: a remote store or a remote RMW\<close>
        have "ewg L w \<noteq> ewg L r" using False wk r(4) by simp
        then have "sc_pair P w r" using sc_pairD[OF sc ww(1), of r] r(1,3,4) ww(2) wk by simp
        then have "rstore_ev P w \<or> racq_ev P w"
          using r(2) rd_not_wr[OF r(1)] rload_wide racq_wide unfolding sc_pair_def by blast
        then show ?thesis
        proof
          assume "rstore_ev P w"
          then obtain sc r0 x0 where op: "ins P u k = Op (Store sc True) r0 x0" using wk by (auto simp: rstore_ev_def)
          have pf: "p = False" using ww(1) wk op by (cases p) (auto simp: acc_def)
          have "rstore P u k" using op by (simp add: rstore_def)
          moreover have "is_wr P (Acc u k False)" "done_ev S P s (Acc u k False)" "knows_at L P g (Acc u k False) a"
            "a \<noteq> Acc u k False"
            using ww(1) dw ka na wk pf by simp_all
          ultimately have "fresh L S P s g (dev_of L (wg_of L u)) a" using rp unfolding rp_ok_def by blast
          then show ?thesis using fr by blast
        next
          assume rq: "racq_ev P w"
          then obtain sc r0 x0 where op: "ins P u k = Op (FetchInc sc True) r0 x0" "sc \<in> {Device, AllDevices}"
            using wk ww(1) by (auto simp: racq_ev_def acc_def)
          have pt: "p = True" using ww(1) wk op by (cases p) (auto simp: acc_def)
          have rm: "rrmw P u k" using op by (simp add: rrmw_def)
          have dT: "done_ev S P s (Acc u k True)" using dw wk pt by simp
          show ?thesis
          proof (rule main)
            fix j q assume "j < k" and "knows_at L P g (Acc u j q) a"
            then have "fresh L S P s g (dev_of L (wg_of L u)) a" using rp rm dT unfolding rp_ok_def by blast
            then show "sb L g a (h1 g v y)" using fr by blast
          qed
        qed
      qed
    qed
  qed
qed


text \<open>A read at device scope or wider is a read of an operation that reads
  at device scope or wider.\<close>
lemma wide_rd_ev: "is_rd P (Acc t k False) \<Longrightarrow> src_code P t ! k = Op a0 r0 x0 \<Longrightarrow> wide_ev P (Acc t k False)
    \<Longrightarrow> wide_rd_op a0"
  by (cases a0) (auto simp: wide_ev_def acc_def ins_def)

lemma kl_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and wr: "wr_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "acq_rows S A B" "l2_flushed S B" "rl_rows S A B"
    and wp: "well_placed L P" and sc: "scoped_conflicts L P" and ds: "dev_sys L P" and gi: "ginv L S P s' g'"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and l2: "l2_ok L S P s g" and hb: "hb_ok L S P s g" and kw: "kw_ok L S P s g" and kl: "kl_ok L S P s g"
    and kr: "kr_ok L S P s g" and rp: "rp_ok L S P s g" and kl2: "kl2_ok L S P s g"
  shows "kl_ok L S P s' g' \<and> kr_ok L S P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t" and ?w0 = "wg_of L t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" and ti: "time_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
  have c0: "0 < clk g" using wr_okD(1)[OF wr] .
  have kh: "kh_ok L S P s g" using hb by (simp add: hb_ok_def)
  have ho: "home_ok L s g" using wr_okD(8)[OF wr] .
  have ww: "?w0 \<in> wgs L" using wp t by (simp add: well_placed_def)
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have new: "\<And>e. done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e \<Longrightarrow> sthread e = Some t" using se(1) by fastforce
  have so: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using se(4)[OF that] .
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(5,6) by (simp add: set_pc_def)
  have kdef: "length (filter visible (take ?n ?xs)) = ?k" by (simp add: kd_def)
  have xsc: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
  have stepwin: "win ?xs (Suc ?n)"
    if v: "visible ?i" and o: "src_code P t ! ?k = Op a0 r0 x0" and wb: "wide_rd_op a0 \<or> a0 \<in> B" for a0 r0 x0
  proof -
    have "?n < length (concat (map (compile_instr S) (src_code P t)))" using z(1) xsc by simp
    moreover have "visible (concat (map (compile_instr S) (src_code P t)) ! ?n)" using v xsc by simp
    moreover have "length (filter visible (take ?n (concat (map (compile_instr S) (src_code P t))))) = ?k"
      using kdef xsc by simp
    ultimately show ?thesis using compiled_win[OF rows(1,2,4) ops _ _ _ o wb] xsc by simp
  qed
  have ik: "?i = src_access B (src_code P t ! ?k)" if "visible ?i" using se(2) that by blast
  have inc2win: "win ?xs (Suc ?n)" if "?i = INCL2 r0 x0" for r0 x0
  proof (cases "src_code P t ! ?k")
    case (Op a0 r1 x1)
    have "a0 \<in> B" using ik that Op by (cases a0) (auto simp: access_def split: if_splits)
    then show ?thesis using stepwin that Op by simp
  next
    case (SetReg r1 v)
    then show ?thesis using ik that by simp
  qed
  have widewin: "win ?xs (Suc ?n)" if v: "visible ?i" and r: "is_rd P (Acc t ?k False)" and w: "wide_ev P (Acc t ?k False)"
  proof -
    obtain a0 r0 x0 where o: "src_code P t ! ?k = Op a0 r0 x0"
      using r by (cases "src_code P t ! ?k") (auto simp: acc_def ins_def)
    then show ?thesis using stepwin[OF v o] wide_rd_ev[OF r o w] by blast
  qed
  note old = kl_old[OF inv gi st rows(1-3) rows(4,6) gs gv ww c0 kh kl]
  have kl': "kl_ok L S P s' g'" unfolding kl_ok_def
  proof (intro ballI allI impI)
    fix u c a y
    assume u: "u \<in> src_threads P" and A: "done_ev S P s' c \<and> sthread c = Some u \<and> knows_at L P g' c a
      \<and> wx S P s' y a \<and> readable (l1 s' (wg_of L u) y) \<and> \<not> exempt L S P s' c a"
    have ya: "sloc P a = Some y" using A wx_loc by blast
    show "sb L g' a (h1 g' (wg_of L u) y)"
    proof (cases "done_ev S P s c")
      case True
      have kc: "knows_at L P g c a" using knows_at_keep[OF ei gr True] A by simp
      have ne: "\<not> exempt L S P s c a" using exempt_step[OF st rows(1-3) gv ww] A by blast
      show ?thesis using old[OF u True _ kc ne ya] A by blast
    next
      case False
      obtain p where cp: "c = Acc t ?k p" and vi: "visible ?i" using se(1) A False by blast
      have ut: "u = t" using A cp by simp
      have nw: "\<not> win ?xs ?n" using visible_no_win[OF z(1) vi] .
      have oldc: ?thesis if "done_ev S P s c0" "sthread c0 = Some t" "knows_at L P g c0 a" for c0
      proof -
        have "\<not> exempt L S P s c0 a" using nw that(2) unfolding exempt_def by auto
        then show ?thesis using old[OF t that _ ya] A ut by blast
      qed
      have exc: "exempt L S P s' c a" if "win ?xs (Suc ?n)" "sloc P a = sloc P c \<or> fw L P ?w0 (sloc P c)"
        unfolding exempt_def using that cp z(7) vi pc' by auto
      have ownc: ?thesis if ta: "sthread a = Some t"
      proof (cases "done_ev S P s a")
        case True
        have "is_wr P a" using A ta by (cases a) (auto simp: wx_def)
        then have "knows_at L P g a a" unfolding knows_at_def by (intro exI[of _ a]) (simp add: ob_wr)
        then show ?thesis using oldc[OF True ta] by blast
      next
        case False
        have wa': "is_wr P a" "done_ev S P s' a" using A ta by (cases a; auto simp: wx_def)+
        obtain y0 where y0: "sloc P a = Some y0" "\<exists>p. a = Acc t ?k p"
            "(((\<exists>v. ?i = ST v y0) \<or> (\<exists>r. ?i = INCL1 r y0)) \<and> ga2 g' a = None \<and> h1 g' ?w0 y0 = a)
             \<or> ((\<exists>r. ?i = INCL2 r y0) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L ?w0) y0 = a)"
          using se(7)[OF wa' False] by blast
        have yy: "y0 = y" using y0(1) ya by simp
        from y0(3) show ?thesis
        proof
          assume "((\<exists>v. ?i = ST v y0) \<or> (\<exists>r. ?i = INCL1 r y0)) \<and> ga2 g' a = None \<and> h1 g' ?w0 y0 = a"
          then show ?thesis using ut yy by simp
        next
          assume "(\<exists>r. ?i = INCL2 r y0) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L ?w0) y0 = a"
          then have "win ?xs (Suc ?n)" using inc2win by blast
          moreover have "sloc P a = sloc P c" using y0(2) cp by auto
          ultimately show ?thesis using exc A by blast
        qed
      qed
      have rdc: ?thesis if rd: "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "a = grf g' r" for r
      proof -
        obtain p' where "r = Acc t ?k p'" using se(1)[OF rd(2,3)] by blast
        then have rk: "r = Acc t ?k False" using rd(1) by (cases p') (auto dest: rd_part)
        have sr: "sloc P a = sloc P r" using ev_parts(2)[OF ei'] rd by simp
        have src: "sloc P r = sloc P c" using rk cp by simp
        show ?thesis
        proof (cases "win ?xs (Suc ?n)")
          case True
          have "exempt L S P s' c a" using exc[OF True] sr src by simp
          then show ?thesis using A by blast
        next
          case nwin: False
          have ni2: "\<forall>r x. ?i \<noteq> INCL2 r x" using inc2win nwin by blast
          obtain y0 r0 where y0: "sloc P r = Some y0" "(?i = LD r0 y0 \<or> ?i = INCL1 r0 y0) \<and> grf g' r = h1 g ?w0 y0
              \<and> readable (l1 s ?w0 y0)"
            using se(6) rd(1,2) rk ni2 by blast
          have yy: "y0 = y" using y0(1) sr ya by simp
          from y0(2) consider "?i = LD r0 y0" | "?i = INCL1 r0 y0" by blast
          then show ?thesis
          proof cases
            case 1
            then have "h1 g' ?w0 y = h1 g ?w0 y" using gv by (simp add: gview_def)
            then show ?thesis using y0(2) rd(4) yy ut by simp
          next
            case 2
            have hl: "h1 g' ?w0 y = Acc t ?k True" using gv 2 yy by (simp add: gview_def)
            have r': "readable (l1 s' ?w0 y)" using A ut by simp
            note nf = new_line_facts[OF gi gs r' hl ni2]
            have wl: "wx S P s y (h1 g ?w0 y)" using h1_wx[OF li] y0(2) yy by simp
            have hh: "ga2 g (h1 g ?w0 y) = None \<longrightarrow> ewg L (h1 g ?w0 y) = Some ?w0"
                "ga3 g (h1 g ?w0 y) = None \<longrightarrow> dv L (h1 g ?w0 y) = Some (dev_of L ?w0)"
              using home_okD(1,2)[OF ho] y0(2) yy by simp_all
            have "sb L g' (h1 g ?w0 y) (h1 g' ?w0 y)"
              by (rule sb_new_line[OF ti c0 wl hh]) (use so[OF wx_done[OF wl]] nf in auto)
            then show ?thesis using y0(2) rd(4) yy ut by simp
          qed
        qed
      qed
      have kn': "knows L S P s' g' t a" using knows_at_knows A ut by blast
      from knows_step[OF ei ei' gr new kn'] consider
          (old) "knows L S P s g t a" | (own) "sthread a = Some t"
        | (rd) r where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "a = grf g' r"
        | (sy) r b where "is_rd P r" "done_ev S P s' r" "\<not> done_ev S P s r" "is_wr P b \<or> is_rd P b"
            "(b, grf g' r) \<in> hbm L P g" "ob P g b = a" "(grf g' r, r) \<in> swm L P g'"
        by blast
      then show ?thesis
      proof cases
        case old
        then consider "sthread a = Some t" | b c0 where "is_wr P b \<or> is_rd P b" "done_ev S P s c0"
            "sthread c0 = Some t" "b = c0 \<or> (b, c0) \<in> hbm L P g" "ob P g b = a"
          unfolding knows_def by blast
        then show ?thesis
        proof cases
          case 1
          then show ?thesis using ownc by blast
        next
          case (2 b c0)
          then have "knows_at L P g c0 a" unfolding knows_at_def by blast
          then show ?thesis using oldc 2 by blast
        qed
      next
        case own
        then show ?thesis using ownc by blast
      next
        case (rd r)
        then show ?thesis using rdc by blast
      next
        case (sy r b)
        obtain p' where "r = Acc t ?k p'" using se(1)[OF sy(2,3)] by blast
        then have rk: "r = Acc t ?k False" using sy(1) by (cases p') (auto dest: rd_part)
        define w' where "w' = grf g' r"
        have hr: "done_ev S P s w'" using step_read_home[OF inv wr t st rows(1-3) gs gv sy(1-3)] w'_def by blast
        have wr': "is_wr P w'" "sloc P w' = sloc P r" using ev_parts(2)[OF ei'] sy(1,2) w'_def by simp_all
        obtain u' j q where uw: "w' = Acc u' j q" using sy(7) w'_def by (cases "grf g' r") (auto simp: swm_def atomic_ev_def)
        have u': "u' \<in> src_threads P" using wr'(1) uw by (simp add: acc_def)
        have kw': "knows_at L P g w' a" unfolding knows_at_def using sy(4,5,6) w'_def by blast
        have src: "sloc P r = sloc P c" using rk cp by simp
        have tw: "sthread w' = Some u'" using uw by simp
        \<comment> \<open>promotion: a remote store of another work-group of the device hands
          over what is fresh in every L1 of the device\<close>
        have prom: ?thesis if wu: "wg_of L u' \<noteq> ?w0" and rs: "rstore_ev P w'"
        proof (cases "a = w'")
          case True
          then show ?thesis using rdc[OF sy(1-3)] w'_def by blast
        next
          case False
          have "dv L w' = dv L r"
            using dv_sys[OF ds wr'(1) disjI1[OF sy(1)] wr'(2)] rstore_remote[OF rs] uw rk by simp
          then have dv': "dev_of L (wg_of L u') = dev_of L ?w0" using uw rk by (simp add: dv_def)
          obtain sc0 r0 x0 where op: "ins P u' j = Op (Store sc0 True) r0 x0" using rs uw by (auto simp: rstore_ev_def)
          have qf: "q = False" using wr'(1) uw op by (cases q) (auto simp: acc_def)
          have rk': "rstore P u' j" using op by (simp add: rstore_def)
          have da: "done_ev S P s a" using knows_at_done[OF ei hr kw'] by blast
          have "fresh L S P s g (dev_of L (wg_of L u')) a"
            using rp rk' wr'(1) hr kw' False uw qf unfolding rp_ok_def by blast
          then have "fresh L S P s' g' (dev_of L ?w0) a" using fresh_thread[OF inv gi st rows(1-3) gs gv ww c0 _ _ da] dv' wp t by (simp add: well_placed_def)
          then show ?thesis using A ut ww unfolding fresh_def by blast
        qed
        show ?thesis
        proof (cases "win ?xs (Suc ?n)")
          case True
          have nf: "sloc P a \<noteq> sloc P c" "\<not> fw L P ?w0 (sloc P c)" using exc True A by blast+
          show ?thesis
          proof (cases "wg_of L u' = ?w0")
            case wu: True
            have "\<not> exempt L S P s w' a" using nf wr'(2) src wu uw unfolding exempt_def by auto
            then show ?thesis using old[OF u' hr tw kw' _ ya] A ut wu by simp
          next
            case wu: False
            show ?thesis
            proof (cases "rstore_ev P w'")
              case True
              then show ?thesis using prom wu by blast
            next
              case nr: False
              have "fw L P ?w0 (sloc P c)" unfolding fw_def using wr' src uw wu nr by (intro exI[of _ w']) simp
              then show ?thesis using nf(2) by blast
            qed
          qed
        next
          case nwin: False
          have nwide: "\<not> wide_ev P r" using widewin[OF vi] nwin sy(1) rk by blast
          have ni2: "\<forall>r x. ?i \<noteq> INCL2 r x" using inc2win nwin by blast
          obtain y0 r0 where y0: "sloc P r = Some y0" "(?i = LD r0 y0 \<or> ?i = INCL1 r0 y0) \<and> grf g' r = h1 g ?w0 y0
              \<and> readable (l1 s ?w0 y0)"
            using se(6) sy(1,2) rk ni2 by blast
          have wa: "wx S P s y a" using knows_at_wx[OF ei hr kw' ya] .
          have "\<not> sys_ev P r" using nwide rk by (simp add: sys_ev_def wide_ev_def)
          then have "dv L w' = dv L r" using dv_sys[OF ds wr'(1) disjI1[OF sy(1)] wr'(2)] uw rk by simp
          then have dvu: "dev_of L (wg_of L u') = dev_of L ?w0" using uw rk by (simp add: dv_def)
          show ?thesis
          proof (cases "sloc P a = sloc P w'")
            case False
            \<comment> \<open>another location: settled before the work-group's line, as what
              every write of the read's location knows (promotion by a remote
              store or a remote RMW among them)\<close>
            have yx: "y \<noteq> y0" using False wr'(2) y0(1) ya by simp
            have r': "readable (l1 s' ?w0 y)" using A ut by simp
            have l: "readable (l1 s ?w0 y) \<and> h1 g' ?w0 y = h1 g ?w0 y"
              using step_l1[OF st rows(1-3) gv ww r'] y0(2) yx by auto
            have wxw: "wx S P s y0 w'" using hr wr' y0(1) by (simp add: wx_def)
            have "sb L g a (h1 g ?w0 y)"
              using wg_reader_settled[OF ei kw kl rp sc ds wp sy(1) nwide y0(1) _ ya yx] wxw kw' l rk by simp
            moreover have "done_ev S P s (h1 g ?w0 y)" using wx_done[OF h1_wx[OF li]] l by blast
            ultimately show ?thesis using sb_cong[of g' a g "h1 g ?w0 y"] so[OF wx_done[OF wa]] so l ut by simp
          next
            case sa: True
            have db: "done_ev S P s b" using hbm_done[OF ei sy(5) hr[unfolded w'_def]] .
            have "sloc P (ob P g b) = sloc P b"
              using ev_parts(2)[OF ei] db by (cases "is_rd P b") (auto simp: ob_def)
            then have "sloc P b = sloc P w'" using sa sy(6) by simp
            then have sb1: "sb L g a w'" using kw hr wr'(1) sy(4,5,6) w'_def unfolding kw_ok_def by blast
            have "(b, w') \<in> hbm L P g" using sy(5) w'_def by simp
            then have naw: "a \<noteq> w'" using kw hr wr'(1) sy(4,6) unfolding kw_ok_def by blast
            have yy: "y0 = y" using y0(1) sa wr'(2) ya by simp
            from y0(2) consider "?i = LD r0 y0" | "?i = INCL1 r0 y0" by blast
            then show ?thesis
            proof cases
              case 1
              then have "h1 g' ?w0 y = w'" using gv y0(2) yy w'_def by (simp add: gview_def)
              moreover have "sb L g' a w' = sb L g a w'"
                by (rule sb_cong) (use so[OF wx_done[OF wa]] so[OF hr] in auto)
              ultimately show ?thesis using sb1 ut by simp
            next
              case 2
              have hl: "h1 g' ?w0 y = Acc t ?k True" using gv 2 yy by (simp add: gview_def)
              have r': "readable (l1 s' ?w0 y)" using A ut by simp
              note nf = new_line_facts[OF gi gs r' hl ni2]
              have hh3: "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L ?w0)"
                using kh u' wa knows_at_knows[OF hr tw kw'] dvu unfolding kh_ok_def by auto
              \<comment> \<open>a write not yet in the L2 and settled before w' waits with it, in
                the L1 line the read read\<close>
              have t23: "ga2 g a = None \<longrightarrow> ga3 g a = None"
              proof (cases "\<exists>z. a = Init z")
                case True
                then show ?thesis using ti by (auto simp: time_inv_def)
              next
                case False
                then show ?thesis using time_perf[OF ti wa] by blast
              qed
              have "ga2 g a = None \<longrightarrow> ewg L a = Some ?w0"
              proof
                assume a2: "ga2 g a = None"
                then have "ewg L a = ewg L w'" "ga2 g w' = None" using sb1 t23 naw unfolding sb_def by auto
                moreover have "ga2 g w' = None \<longrightarrow> ewg L w' = Some ?w0"
                  using home_okD(1)[OF ho] y0(2) w'_def by simp
                ultimately show "ewg L a = Some ?w0" by simp
              qed
              then have hh: "ga2 g a = None \<longrightarrow> ewg L a = Some ?w0" "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L ?w0)"
                using hh3 by blast+
              show ?thesis using sb_new_line[OF ti c0 wa hh] so[OF wx_done[OF wa]] nf ut by auto
            qed
          qed
        qed
      qed
    qed
  qed
  have sbo: "sb L g' a h = sb L g a h" if "done_ev S P s a" "done_ev S P s h" for a h
    using so[OF that(1)] so[OF that(2)] by (intro sb_cong) auto
  have nd: "\<not> done_ev S P s (Acc t ?k p)" for p by simp
  have od': "done_ev S P s (Acc t j p)" if "j < ?k" for j p using that by simp
  have newk: "\<exists>p. e = Acc t ?k p" if "done_ev S P s' e" "\<not> done_ev S P s e" for e using se(1)[OF that] by blast
  have rdold: "done_ev S P s (grf g' r)" if "is_rd P r" "done_ev S P s' r" for r
  proof (cases "done_ev S P s r")
    case True
    then show ?thesis using ev_parts(2)[OF ei] that(1) gr by auto
  next
    case False
    then show ?thesis using step_read_home[OF inv wr t st rows(1-3) gs gv that False] by blast
  qed
  have po_new: "sthread y = Some t" if "(y, c) \<in> src_po P" "\<not> done_ev S P s c" "done_ev S P s' c" for y c
    using that new[OF that(3,2)] by (auto simp: src_po_def)
  have kr': "kr_ok L S P s' g'" unfolding kr_ok_def
  proof (intro allI impI)
    fix r b assume a: "is_rd P r \<and> done_ev S P s' r \<and> (is_wr P b \<or> is_rd P b) \<and> (b, r) \<in> hbm L P g' \<and> sloc P b = sloc P r"
    have h: "(b, r) \<in> hbm L P g'" using a by blast
    have db': "done_ev S P s' b" using hbm_done[OF ei' h] a by blast
    obtain x where x: "sloc P r = Some x" using a ev_parts(2)[OF ei'] by (metis wr_loc)
    show "sb L g' (ob P g' b) (grf g' r)"
    proof (cases "done_ev S P s r")
      case True
      have hb0: "(b, r) \<in> hbm L P g" using hbm_keep[OF ei gr h True] .
      have db: "done_ev S P s b" using hbm_done[OF ei hb0 True] .
      have o: "ob P g' b = ob P g b" "grf g' r = grf g r" using gr db True by (simp_all add: ob_def)
      have "sb L g (ob P g b) (grf g r)" using kr a True hb0 unfolding kr_ok_def by blast
      moreover have "done_ev S P s (ob P g b)" using db ev_parts(2)[OF ei] by (auto simp: ob_def)
      moreover have "done_ev S P s (grf g r)" using ev_parts(2)[OF ei] a True by blast
      ultimately show ?thesis using o sbo by simp
    next
      case nr: False
      obtain p' where "r = Acc t ?k p'" using se(1) a nr by blast
      then have rk: "r = Acc t ?k False" using a by (cases p') (auto dest: rd_part)
      have vi: "visible ?i" using se(1) a nr by blast
      have db: "done_ev S P s b"
      proof (rule ccontr)
        assume "\<not> done_ev S P s b"
        then have "r = Acc t ?k True" using hbm_from_new[OF ei' newk nd od' rdold h _ db'] a by blast
        then show False using rk by simp
      qed
      have ob: "ob P g' b = ob P g b" using gr db by (simp add: ob_def)
      have dob: "done_ev S P s (ob P g b)" using db ev_parts(2)[OF ei] by (auto simp: ob_def)
      have sob: "sloc P (ob P g b) = Some x" using ev_parts(2)[OF ei] db a x by (auto simp: ob_def)
      have wob: "wx S P s x (ob P g b)" using ob_wx_done[OF ei _ db] a x by simp
      have gro: "done_ev S P s (grf g' r)" using rdold a by blast
      have dr': "done_ev S P s' r" using a by blast
      have hn: "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
         \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
        by (rule hbm_into_new[OF ei ei' gr h dr' nr]) (use po_new in blast)
      from hn consider
          y where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s y" "sthread y = Some t"
        | y r' where "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s y" "(y, r') \<in> swm L P g'"
            "\<not> done_ev S P s r'" "done_ev S P s' r'"
        using db by blast
      then show ?thesis
      proof cases
        case (1 y)
        have ky: "knows_at L P g y (ob P g b)" unfolding knows_at_def using 1(1) a by blast
        have ne: "\<not> exempt L S P s y (ob P g b)"
          using visible_no_win[OF z(1) vi] 1(3) unfolding exempt_def by auto
        obtain y0 r0 where y0: "sloc P r = Some y0"
            "((?i = LD r0 y0 \<or> ?i = INCL1 r0 y0) \<and> grf g' r = h1 g ?w0 y0 \<and> readable (l1 s ?w0 y0))
             \<or> (?i = INCL2 r0 y0 \<and> grf g' r = h2 g (dev_of L ?w0) y0 \<and> readable (l2 s (dev_of L ?w0) y0))"
          using se(6) a rk by blast
        have yy: "y0 = x" using y0(1) x by simp
        have "sb L g (ob P g b) (grf g' r)"
        proof (cases "?i = INCL2 r0 y0")
          case False
          then have l: "grf g' r = h1 g ?w0 x" "readable (l1 s ?w0 x)" using y0(2) yy by auto
          have "sb L g (ob P g b) (h1 g ?w0 x)" using kl t 1(2,3) ky wob l(2) ne unfolding kl_ok_def by blast
          then show ?thesis using l(1) by simp
        next
          case True
          then have l: "grf g' r = h2 g (dev_of L ?w0) x" "readable (l2 s (dev_of L ?w0) x)" using y0(2) yy by auto
          have fl: "flushed ?xs ?n"
            using compiled_flushed[OF rows(1,2,5) ops, of ?n r0 y0] z(1) True xsc by simp
          have "knows L S P s g t (ob P g b)" using knows_at_knows[OF 1(2,3) ky] .
          then have a2: "ga2 g (ob P g b) \<noteq> None" using known_flushed[OF oi kh t wp fl z(3) wob] by blast
          show ?thesis
          proof (cases "ob P g b = Init x \<or> dv L (ob P g b) = Some (dev_of L ?w0)")
            case True
            then show ?thesis using sb_l2_line[OF inv l2 _ wob a2 l(2)] l(1) by simp
          next
            case False
            \<comment> \<open>another device's write: settled before the L2 line (kl2_ok)\<close>
            have "\<not> exempt2 S P s y" using visible_no_win2[OF z(1) vi] 1(3) unfolding exempt2_def by auto
            then show ?thesis using kl2_okD[OF kl2 t 1(2,3) ky wob _ l(2)] False l(1) by simp
          qed
        qed
        then show ?thesis using ob sbo[OF dob gro] by simp
      next
        case (2 y r')
        obtain p2 where "r' = Acc t ?k p2" using se(1)[OF 2(5,4)] by blast
        moreover have "is_rd P r'" using 2(3) by (simp add: swm_def)
        ultimately have "r' = r" using rk by (cases p2) (auto dest: rd_part)
        then have yr: "y = grf g' r" using 2(3) by (simp add: swm_def)
        have "sb L g (ob P g b) y"
        proof (cases "b = y")
          case True
          have "is_wr P y" using yr ev_parts(2)[OF ei'] a by blast
          then show ?thesis using True by (simp add: ob_wr)
        next
          case False
          then have hy: "(b, y) \<in> hbm L P g" using 2(1) by blast
          have "is_wr P y" "sloc P y = sloc P r" using yr ev_parts(2)[OF ei'] a by simp_all
          then show ?thesis using kw 2(2) hy a unfolding kw_ok_def by auto
        qed
        then show ?thesis using ob yr sbo[OF dob gro] by simp
      qed
    qed
  qed
  show ?thesis using kl' kr' by blast
qed

section \<open>In every reachable state\<close>

lemma hb_reachable:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B"
      "mem_rows S (A \<union> B)"
    and wp: "well_placed L P" and sc: "scoped_conflicts L P"
  shows "\<exists>g. ginv L S P s g \<and> oinv L S P s g \<and> wr_ok L S P s g \<and> l2_ok L S P s g \<and> hb_ok L S P s g
    \<and> kw_ok L S P s g \<and> (prom_rows S A B \<and> acq2_rows S (A \<union> B) \<longrightarrow> rp_ok L S P s g)
    \<and> (acq_rows S A B \<and> prom_rows S A B \<and> acq2_rows S (A \<union> B) \<and> dev_sys L P \<longrightarrow> kl_ok L S P s g \<and> kr_ok L S P s g)
    \<and> mr_ok L S P s g \<and> (acq2_rows S (A \<union> B) \<longrightarrow> kl2_ok L S P s g)"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using reach by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    show ?case
      by (intro exI[of _ "ghost0 P"] conjI impI ginv_initial oinv_initial wr_ok_initial l2_ok_initial hb_ok_initial
          kw_ok_initial kl_ok_initial kr_ok_initial rp_ok_initial mr_ok_initial kl2_ok_initial)
  next
    case (step s1 s2)
    then obtain g where g: "ginv L S P s1 g" "oinv L S P s1 g" "wr_ok L S P s1 g" "l2_ok L S P s1 g" "hb_ok L S P s1 g"
      "kw_ok L S P s1 g" "prom_rows S A B \<and> acq2_rows S (A \<union> B) \<longrightarrow> rp_ok L S P s1 g"
      "acq_rows S A B \<and> prom_rows S A B \<and> acq2_rows S (A \<union> B) \<and> dev_sys L P \<longrightarrow> kl_ok L S P s1 g \<and> kr_ok L S P s1 g"
      "mr_ok L S P s1 g" "acq2_rows S (A \<union> B) \<longrightarrow> kl2_ok L S P s1 g"
      by blast
    have c0: "0 < clk g" using wr_okD(1)[OF g(3)] .
    have kh: "kh_ok L S P s1 g" using g(5) by (simp add: hb_ok_def)
    have "threads (compile S P) = src_threads P" by (simp add: compile_def)
    then consider (thr) t where "t \<in> src_threads P" "step_thread L (compile S P) t s1 = Some s2"
      | (env) "s2 \<in> env_step L wb s1"
      using step.hyps(2) unfolding step_def by blast
    then show ?case
    proof cases
      case thr
      obtain g' where g': "ginv L S P s2 g'" "oinv L S P s2 g'" "wr_ok L S P s2 g'" "l2_ok L S P s2 g'"
          "gstep P (done_ev S P s1) (done_ev S P s2) (instrs (compile S P) t ! pc s1 t) g g'"
          "gview L t (kd S P s1 t) (instrs (compile S P) t ! pc s1 t) g g'"
        using oinv_thread[OF g(1,2) thr rows(1-4) wp] g(3,4) rows(5) by blast
      have hb': "hb_ok L S P s2 g'"
        by (rule hb_thread[OF g(1,2,3) thr rows(1-3,6,7) wp sc g'(1,5,6) g(5) mr_sys[OF g(9) rows(8,3)]])
      have "kw_ok L S P s2 g'" by (rule kw_thread[OF g(1,2,3) thr rows(1-4) rows(7) wp g'(1,5,6) g(5) hb' g(6)])
      moreover have "prom_rows S A B \<and> acq2_rows S (A \<union> B) \<longrightarrow> rp_ok L S P s2 g'"
        using rp_thread[OF g(1,2) kh thr rows(1-3) _ wp _ g'(1,5,6) c0 _ _] g(7,10) by blast
      moreover have "acq_rows S A B \<and> prom_rows S A B \<and> acq2_rows S (A \<union> B) \<and> dev_sys L P \<longrightarrow> kl_ok L S P s2 g' \<and> kr_ok L S P s2 g'"
      proof
        assume h: "acq_rows S A B \<and> prom_rows S A B \<and> acq2_rows S (A \<union> B) \<and> dev_sys L P"
        have ds: "dev_sys L P" using h by blast
        have k2: "kl2_ok L S P s1 g" using h g(10) by blast
        show "kl_ok L S P s2 g' \<and> kr_ok L S P s2 g'"
          using kl_thread[OF g(1,2,3) thr rows(1-3) _ rows(4,7) wp sc ds g'(1,5,6) g(4,5,6) _ _ _ k2] g(7,8) h by blast
      qed
      moreover have "mr_ok L S P s2 g'" by (rule mr_thread[OF g(1,2) kh thr rows(1-3,8) wp g'(1,5,6) g(9)])
      moreover have "acq2_rows S (A \<union> B) \<longrightarrow> kl2_ok L S P s2 g'"
        using kl2_thread[OF g(1,3) thr rows(1-3) _ mem_rows_no_sys_rmw[OF rows(8)] wp g'(1,5,6) kh] g(10) by blast
      ultimately show ?thesis using g' hb' by blast
    next
      case env
      obtain g' where g': "ginv L S P s2 g'" "oinv L S P s2 g'" "wr_ok L S P s2 g'" "l2_ok L S P s2 g'" "env_mono g g'"
          "sb_keep L S P s1 g g'" "l1_env L s1 s2 g g'" "fifo_env L S P s1 s2 g g'" "fifo2_env L S P s1 s2 g g'"
          "l2_env L s1 s2 g g'"
        using oinv_env[OF g(1,2) env] g(3,4) c0 by blast
      have pc: "pc s2 = pc s1" using env_step_regs_pc_locks[OF env] by simp
      have ei: "ev_inv S P s1 g" using g(1) by (simp add: ginv_def)
      have "hb_ok L S P s2 g'" using hb_env[OF pc g'(5) g(5,2) g'(8)] .
      moreover have "kw_ok L S P s2 g'" using kw_env[OF pc g'(5,6) ei g(6)] .
      moreover have "prom_rows S A B \<and> acq2_rows S (A \<union> B) \<longrightarrow> rp_ok L S P s2 g'"
        using rp_env[OF pc g'(5,6,7,10) g(1,4)] g(7) by blast
      moreover have "acq_rows S A B \<and> prom_rows S A B \<and> acq2_rows S (A \<union> B) \<and> dev_sys L P \<longrightarrow> kl_ok L S P s2 g' \<and> kr_ok L S P s2 g'"
      proof
        assume h: "acq_rows S A B \<and> prom_rows S A B \<and> acq2_rows S (A \<union> B) \<and> dev_sys L P"
        have ds: "dev_sys L P" using h by blast
        have k2: "kl2_ok L S P s1 g" using h g(10) by blast
        have kl1: "kl_ok L S P s1 g" "kr_ok L S P s1 g" using h g(8) by blast+
        show "kl_ok L S P s2 g' \<and> kr_ok L S P s2 g'"
          using kl_env[OF pc g'(5,6,7) g(1) kh g(4) ds rows(1-3) _ rows(7) kl1(1) k2] kr_env[OF pc g'(5,6) ei kl1(2)] h
          by blast
      qed
      moreover have "mr_ok L S P s2 g'" using mr_env[OF pc g'(5,9) wp g(9)] .
      moreover have "acq2_rows S (A \<union> B) \<longrightarrow> kl2_ok L S P s2 g'"
        using kl2_env[OF pc g'(5,6,10) g(1) kh] g(10) by blast
      ultimately show ?thesis using g' by blast
    qed
  qed
qed

section \<open>The theorem\<close>

text \<open>On a race-free program whose remote operations promote at most loads
  by remote stores and remote RMWs, work-group-scope writes to remote loads
  and work-group-scope stores and RMWs to remote RMWs (and without
  non-atomic RMWs),
  compiled by rows whose increments at the L2 are flushed before and
  invalidated after, whose writes at device scope or wider flush first and
  whose remote loads and RMWs flush the device's L1s after
  their access (rsp-new's): in every reachable state, a write an access
  knows (its own, or observed before it in happens-before) that has not
  reached the L2 waits in its thread's work-group's L1, but in a remote
  acquire's window (rexempt: until its flush of the device's L1s has passed
  the write's work-group); and every write of a location two work-groups
  access and only atomics at device scope or wider write is a release that
  was flushed: every other write observed before it in happens-before has
  reached the L2. Synchronisation across work-groups hands over only
  writes in the L2, or in the L1s a remote acquire then flushes.\<close>
definition hb_home :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "hb_home L S P s g \<longleftrightarrow>
     (\<forall>t \<in> src_threads P. \<forall>c x a. done_ev S P s c \<and> sthread c = Some t \<and> knows_at L P g c a \<and> wx S P s x a
         \<and> ga2 g a = None \<and> \<not> rexempt L S P s c a \<longrightarrow> a \<in> pend1 L S P s g (wg_of L t) x)
   \<and> (\<forall>w b x. is_wr P w \<and> done_ev S P s w \<and> sloc P w = Some x \<and> wshared L P x \<and> (is_wr P b \<or> is_rd P b)
         \<and> (b, w) \<in> hbm L P g \<and> ob P g b \<noteq> w \<longrightarrow> ga2 g (ob P g b) \<noteq> None)"

theorem machine_knows_home:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
    and wp: "well_placed L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "load_promotion L P"
  shows "\<exists>g. ginv L S P s g \<and> hb_home L S P s g"
proof -
  have fin: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fin rem] .
  obtain g where g: "ginv L S P s g" "hb_ok L S P s g" using hb_reachable[OF reach rows wp sc] by blast
  have "kh_ok L S P s g" "rel_ok L S P s g" using g(2) by (simp_all add: hb_ok_def)
  then show ?thesis using g(1) unfolding hb_home_def kh_ok_def rel_ok_def pend1_def by blast
qed

subsection \<open>What a remote release hands over\<close>

text \<open>What every performed remote store knew, its own write excepted, has
  reached the L2, is of its device (or the initial write), and is settled
  before every readable line of its location in every L1 of that device.\<close>
definition rp_fresh :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "rp_fresh L S P s g \<longleftrightarrow> (\<forall>t k a. rstore P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s (Acc t k False)
     \<and> knows_at L P g (Acc t k False) a \<and> a \<noteq> Acc t k False \<longrightarrow> fresh L S P s g (dev_of L (wg_of L t)) a)"

text \<open>For every race-free program (OpenCL+RSP) whose remote operations
  promote at most as load_promotion says, without non-atomic RMWs, whose
  conflicting accesses sit on one device, of any length and thread count,
  compiled by rows like rsp-new's (a release flushes first; a remote store
  flushes and then invalidates every L1 of its device before it stores, a
  remote RMW before its increment), on every layout,
  under both write-back policies: in every reachable state, what a
  performed remote store knew is fresh in every L1 of its device.\<close>
theorem machine_remote_release_fresh:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
      "prom_rows S A B" "acq2_rows S (A \<union> B)"
    and wp: "well_placed L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "load_promotion L P"
  shows "\<exists>g. ginv L S P s g \<and> rp_fresh L S P s g"
proof -
  have fin: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fin rem] .
  show ?thesis using hb_reachable[OF reach rows(1-8) wp sc] rows(9,10) unfolding rp_ok_def rp_fresh_def by blast
qed

subsection \<open>What an all-devices release hands over\<close>

text \<open>Every write a performed all-devices store knew, its own excepted, has
  reached memory: another device's acquire that reads the store finds it
  there. On any number of devices, for the race-free programs of
  machine_knows_home compiled by rows whose flushes of the L2 follow one of
  the L1 and whose all-devices stores follow both (mem_rows).\<close>
definition mem_released :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "mem_released L S P s g \<longleftrightarrow> (\<forall>t k a. sys_store P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s (Acc t k False)
     \<and> knows_at L P g (Acc t k False) a \<and> a \<noteq> Acc t k False \<longrightarrow> ga3 g a \<noteq> None)"

theorem machine_memory_release:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B"
      "rl_rows S A B" "mem_rows S (A \<union> B)"
    and wp: "well_placed L P" and nr: "\<not> na_rmw P" and lp: "load_promotion L P"
    and rf: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
  shows "\<exists>g. ginv L S P s g \<and> mem_released L S P s g"
proof -
  have fin: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rf fin lp] .
  show ?thesis using hb_reachable[OF reach rows wp sc] unfolding mr_ok_def mem_released_def by blast
qed

subsection \<open>What an all-devices acquire learns\<close>

text \<open>What a performed access knows of another device is settled before
  every readable line of its device's L2, but while the access is an
  all-devices read waiting for its invalidation of the L2 (exempt2): an L2
  line is never older than what synchronisation across devices handed
  over. On any number of devices, for the race-free programs of
  machine_knows_home compiled by rows whose all-devices reads invalidate
  the L2 and then the L1 after their access (acq2_rows).\<close>
theorem machine_acquire_l2_fresh:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B"
      "rl_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    and wp: "well_placed L P" and nr: "\<not> na_rmw P" and lp: "load_promotion L P"
    and rf: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
  shows "\<exists>g. ginv L S P s g \<and> kl2_ok L S P s g"
proof -
  have fin: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rf fin lp] .
  show ?thesis using hb_reachable[OF reach rows(1-8) wp sc] rows(9) by blast
qed


text \<open>Happens-before over a candidate's reads-from (the exhibited one's is
  hbm: its reads-from is the ghost's).\<close>
definition hbr :: "layout \<Rightarrow> src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel" where
  "hbr L P rfw = (src_po P \<union> {(w, r). is_rd P r \<and> rfw r = w \<and> atomic_ev P w \<and> atomic_ev P r
     \<and> (ewg L w = ewg L r \<or> ((wide_ev P w \<and> wide_ev P r \<or> remote_ev P w \<or> remote_ev P r)
          \<and> map_option (dev_of L) (ewg L w) = map_option (dev_of L) (ewg L r)) \<or> (sys_ev P w \<and> sys_ev P r))})\<^sup>+"

lemma hbm_hbr: "hbm L P g = hbr L P (grf g)"
  by (simp add: hbm_def hbr_def swm_def)

text \<open>Coherence after happens-before ([HRF14]'s coherence, its write-write
  and read-write halves): a write before another of its location in
  happens-before is coherence-before it; a read before a write of its
  location reads from a write coherence-before it.\<close>
definition hb_co_ok :: "layout \<Rightarrow> src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel \<Rightarrow> bool" where
  "hb_co_ok L P rfw cr \<longleftrightarrow> (\<forall>b w. is_wr P w \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbr L P rfw
     \<and> sloc P b = sloc P w \<longrightarrow> ((if is_rd P b then rfw b else b), w) \<in> cr)"

text \<open>In a final state every write has reached memory, where sb is the
  coherence order of the exhibited candidate.\<close>
lemma final_sb:
  assumes inv: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and e: "wx S P s x e" "wx S P s x h" "x \<in> src_locs P" and sb: "sb L g e h"
  shows "e = h \<or> (e, h) \<in> run_co P g"
proof -
  note ff = final_facts[OF inv fin wp rows]
  have ti: "time_inv S P s g" using inv by (simp add: ginv_def)
  have w23: "ga3 g f \<noteq> None \<and> ga2 g f \<noteq> None" if f: "wx S P s x f" for f
  proof (cases "\<exists>z. f = Init z")
    case True
    then show ?thesis using ti by (auto simp: time_inv_def)
  next
    case False
    then have "is_wr P f" "sloc P f = Some x" using f by (auto simp: wx_def)
    then have "ga3 g f \<noteq> None" using ff(3) by blast
    moreover have "\<forall>y. f \<noteq> Init y" using False by blast
    moreover have "ga2 g f = None \<longrightarrow> ga3 g f = None" using time_perf[OF ti f] \<open>\<forall>y. f \<noteq> Init y\<close> by blast
    ultimately show ?thesis by (cases "ga2 g f") auto
  qed
  show ?thesis
  proof (cases "e = h")
    case False
    then have k: "klt (key g e) (key g h)" using sb_final[OF sb] w23[OF e(1)] w23[OF e(2)] by blast
    have "\<forall>z. h \<noteq> Init z"
    proof
      fix z show "h \<noteq> Init z"
      proof
        assume "h = Init z"
        then have "key g h = (0, 0, 0)" using ti by (simp add: time_inv_def key_def)
        then show False using k klt_zero by simp
      qed
    qed
    moreover have "is_wr P e" "is_wr P h" using wx_Init_wr[OF e(1,3)] wx_Init_wr[OF e(2,3)] .
    moreover have "sloc P e = sloc P h" using e(1,2) by (simp add: wx_loc)
    ultimately show ?thesis using k by (simp add: run_co_def)
  qed simp
qed

lemma ev_src_loc: "is_wr P b \<or> is_rd P b \<Longrightarrow> sloc P b = Some x \<Longrightarrow> x \<in> src_locs P"
  by (cases b) (auto simp: ev_loc')

text \<open>So a final state's candidate has coherence after happens-before, its
  write halves.\<close>
lemma final_hb_co:
  assumes inv: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and kw: "kw_ok L S P s g"
  shows "hb_co_ok L P (grf g) (run_co P g)"
  unfolding hb_co_ok_def
proof (intro allI impI)
  note ff = final_facts[OF inv fin wp rows]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  fix b w assume a: "is_wr P w \<and> (is_wr P b \<or> is_rd P b) \<and> (b, w) \<in> hbr L P (grf g) \<and> sloc P b = sloc P w"
  have h: "(b, w) \<in> hbm L P g" using a hbm_hbr by metis
  have ev: "is_ev P w" using a by (cases w) auto
  have dw: "done_ev S P s w" using ff(2)[OF ev] .
  have db: "done_ev S P s b" using hbm_done[OF ei h dw] .
  obtain x where x: "sloc P w = Some x" using a wr_loc by blast
  have k: "ob P g b \<noteq> w" "sb L g (ob P g b) w" using kw a dw h unfolding kw_ok_def by blast+
  have wa: "wx S P s x (ob P g b)" using ob_wx_done[OF ei _ db] a x by simp
  have ww: "wx S P s x w" using a dw x by (simp add: wx_def)
  have "x \<in> src_locs P" using ev_src_loc a x by blast
  then have "(ob P g b, w) \<in> run_co P g" using final_sb[OF inv fin wp rows wa ww _ k(2)] k(1) by blast
  then show "((if is_rd P b then grf g b else b), w) \<in> run_co P g" by (simp add: ob_def)
qed

text \<open>Every final state of a race-free program whose remote operations
  promote nothing, compiled by such rows, shows the outcome of a candidate (Hrf_Exhibit's)
  whose coherence agrees with its happens-before on writes and on a read
  before a write: for every program of any length and thread count, on
  every layout, under both write-back policies.\<close>
theorem machine_candidate_hb_co:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
    and wp: "well_placed L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "load_promotion L P"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> hb_co_ok L P (grf g) (run_co P g)"
proof -
  have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fs rem] .
  obtain g where g: "ginv L S P s g" "kw_ok L S P s g" using hb_reachable[OF reach rows wp sc] by blast
  then show ?thesis using final_hb_co[OF g(1) fin wp rows(1-3) g(2)] final_candidate[OF rows(1-3) wp g(1) fin] by blast
qed

corollary machine_outcomes_hb_co:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
    and "well_placed L P"
    and "\<not> na_rmw P" "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" "load_promotion L P"
  shows "outcomes L wb (compile S P) (initial (src_init P))
    \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
    "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  then show "ob \<in> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co}"
    using machine_candidate_hb_co[OF assms s(1,2)] by blast
qed

text \<open>Coherence after happens-before, its read halves: a read after an
  access of its location in happens-before reads from the write that
  access observes or from one coherence-after it.\<close>
definition hb_co_rd_ok :: "layout \<Rightarrow> src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel \<Rightarrow> bool" where
  "hb_co_rd_ok L P rfw cr \<longleftrightarrow> (\<forall>b r. is_rd P r \<and> (is_wr P b \<or> is_rd P b) \<and> (b, r) \<in> hbr L P rfw
     \<and> sloc P b = sloc P r \<longrightarrow> (if is_rd P b then rfw b else b) = rfw r
       \<or> ((if is_rd P b then rfw b else b), rfw r) \<in> cr)"

lemma final_hb_co_rd:
  assumes inv: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and kr: "kr_ok L S P s g"
  shows "hb_co_rd_ok L P (grf g) (run_co P g)"
  unfolding hb_co_rd_ok_def
proof (intro allI impI)
  note ff = final_facts[OF inv fin wp rows]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  fix b r assume a: "is_rd P r \<and> (is_wr P b \<or> is_rd P b) \<and> (b, r) \<in> hbr L P (grf g) \<and> sloc P b = sloc P r"
  have h: "(b, r) \<in> hbm L P g" using a hbm_hbr by metis
  have ev: "is_ev P r" using a by (cases r) auto
  have dr: "done_ev S P s r" using ff(2)[OF ev] .
  have db: "done_ev S P s b" using hbm_done[OF ei h dr] .
  obtain x where x: "sloc P r = Some x" using a ev_parts(2)[OF ei] dr by (metis wr_loc)
  have k: "sb L g (ob P g b) (grf g r)" using kr a dr h unfolding kr_ok_def by blast
  have wa: "wx S P s x (ob P g b)" using ob_wx_done[OF ei _ db] a x by simp
  have wr: "wx S P s x (grf g r)" using grf_wx[OF ei _ dr x] a by blast
  have "x \<in> src_locs P" using ev_src_loc a x by blast
  then have "ob P g b = grf g r \<or> (ob P g b, grf g r) \<in> run_co P g" using final_sb[OF inv fin wp rows wa wr _ k] by blast
  then show "(if is_rd P b then grf g b else b) = grf g r \<or> ((if is_rd P b then grf g b else b), grf g r) \<in> run_co P g"
    by (simp add: ob_def)
qed

text \<open>On one device, with rows whose acquires at device scope and
  increments at the L2 invalidate the L1 after their access (rsp-new's):
  every final state of a race-free program whose remote operations
  promote nothing shows the outcome of a candidate whose coherence agrees with its
  happens-before on every pair of accesses of a location ([HRF14]'s
  coherence), for every program of any length and thread count, on every
  layout of one device, under both write-back policies.\<close>
theorem machine_candidate_hb_coherent:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
      "acq_rows S A B" "prom_rows S A B" "acq2_rows S (A \<union> B)"
    and wp: "well_placed L P" and ds: "dev_sys L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "load_promotion L P"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> hb_co_ok L P (grf g) (run_co P g) \<and> hb_co_rd_ok L P (grf g) (run_co P g)"
proof -
  have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fs rem] .
  obtain g where g: "ginv L S P s g" "kw_ok L S P s g" "kr_ok L S P s g"
    using hb_reachable[OF reach rows(1-8) wp sc] rows(9-11) ds by blast
  show ?thesis using final_hb_co[OF g(1) fin wp rows(1-3) g(2)] final_hb_co_rd[OF g(1) fin wp rows(1-3) g(3)]
      final_candidate[OF rows(1-3) wp g(1) fin] by blast
qed

corollary machine_outcomes_hb_coherent:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
      "acq_rows S A B" "prom_rows S A B" "acq2_rows S (A \<union> B)" and "well_placed L P" "dev_sys L P"
    and "\<not> na_rmw P" "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" "load_promotion L P"
  shows "outcomes L wb (compile S P) (initial (src_init P))
    \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co \<and> hb_co_rd_ok L P rfw co}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
    "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  then show "ob \<in> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co \<and> hb_co_rd_ok L P rfw co}"
    using machine_candidate_hb_coherent[OF assms s(1,2)] by blast
qed

text \<open>So on any number of devices, for a race-free program without remote
  all-devices operations (no_remote_sys): coherence agrees with
  happens-before, synchronisation across devices included.\<close>
corollary machine_outcomes_hb_coherent_devices:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
      "acq_rows S A B" "prom_rows S A B" "acq2_rows S (A \<union> B)" and wp: "well_placed L P" and ns: "no_remote_sys P"
    and nr: "\<not> na_rmw P" and rf: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and lp: "load_promotion L P"
  shows "outcomes L wb (compile S P) (initial (src_init P))
    \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co \<and> hb_co_rd_ok L P rfw co}"
proof -
  have fin: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  show ?thesis using machine_outcomes_hb_coherent[OF assms(1-11) wp race_free_dev_sys[OF nr rf fin lp ns] nr rf lp] .
qed

text \<open>[HRF14]'s visible side effects follow: no write of a read's location
  comes, in happens-before, between the write the read reads from and the
  read.\<close>
definition hb_visible_ok :: "layout \<Rightarrow> src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> bool" where
  "hb_visible_ok L P rfw \<longleftrightarrow> (\<forall>r w. is_rd P r \<and> is_wr P w \<and> sloc P w = sloc P r
     \<longrightarrow> \<not> ((rfw r, w) \<in> hbr L P rfw \<and> (w, r) \<in> hbr L P rfw))"

lemma hb_visible:
  assumes c: "cand_ok P rfw cr v" and h: "hb_co_ok L P rfw cr" "hb_co_rd_ok L P rfw cr"
  shows "hb_visible_ok L P rfw"
  unfolding hb_visible_ok_def
proof (intro allI impI notI)
  fix r w assume a: "is_rd P r \<and> is_wr P w \<and> sloc P w = sloc P r" and b: "(rfw r, w) \<in> hbr L P rfw \<and> (w, r) \<in> hbr L P rfw"
  have wr: "is_wr P (rfw r)" "sloc P (rfw r) = sloc P r" using c a unfolding cand_ok_def by blast+
  have nr: "\<not> is_rd P e" if "is_wr P e" for e
    using that by (cases e) (auto dest: rd_wr)
  have "(if is_rd P w then rfw w else w) = rfw r \<or> ((if is_rd P w then rfw w else w), rfw r) \<in> cr"
    using h(2) a b unfolding hb_co_rd_ok_def by blast
  then have "w = rfw r \<or> (w, rfw r) \<in> cr" using nr a by simp
  moreover have "((if is_rd P (rfw r) then rfw (rfw r) else rfw r), w) \<in> cr"
    using h(1) a b wr unfolding hb_co_ok_def by simp
  then have "(rfw r, w) \<in> cr" using nr[OF wr(1)] by simp
  moreover have "trans cr" "irrefl cr" using c unfolding cand_ok_def by blast+
  ultimately show False by (metis irrefl_def transD)
qed

corollary machine_outcomes_hb_visible:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
      "acq_rows S A B" "prom_rows S A B" "acq2_rows S (A \<union> B)" and "well_placed L P" "dev_sys L P"
    and "\<not> na_rmw P" "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" "load_promotion L P"
  shows "outcomes L wb (compile S P) (initial (src_init P))
    \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co \<and> hb_co_rd_ok L P rfw co
      \<and> hb_visible_ok L P rfw}"
  using machine_outcomes_hb_coherent[OF assms] hb_visible by blast

text \<open>So at a final state the exhibited candidate's happens-before (hbr
  over the ghost's reads-from) is acyclic.\<close>
lemma final_hbr_irrefl:
  assumes g: "ginv L S P s g" "kw_ok L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
  shows "irrefl (hbr L P (grf g))"
proof -
  note ff = final_facts[OF g(1) fin wp rows]
  have ei: "ev_inv S P s g" using g(1) by (simp add: ginv_def)
  have "irrefl (hbm L P g)" unfolding irrefl_def
  proof (intro allI notI)
    fix a assume h: "(a, a) \<in> hbm L P g"
    obtain z where "(a, z) \<in> src_po P \<union> swm L P g" using h unfolding hbm_def by (auto elim: converse_tranclE)
    then have "is_ev P a"
    proof
      assume "(a, z) \<in> src_po P"
      then show ?thesis by (auto simp: src_po_def)
    next
      assume az: "(a, z) \<in> swm L P g"
      then have "is_rd P z" "grf g z = a" by (auto simp: swm_def)
      moreover have "is_ev P z" using \<open>is_rd P z\<close> by (cases z) auto
      ultimately have "is_wr P a" using ev_parts(2)[OF ei] ff(2) by blast
      then show ?thesis by (cases a) auto
    qed
    then show False using hbm_irrefl[OF ei g(2) h] ff(2) by blast
  qed
  then show ?thesis using hbm_hbr by metis
qed

text \<open>So the candidate a final state shows has an acyclic happens-before,
  for every race-free program whose remote operations promote nothing,
  compiled by such rows (several devices included).\<close>
corollary machine_outcomes_hb_acyclic:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B" "rl_rows S A B" "mem_rows S (A \<union> B)"
    and wp: "well_placed L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "load_promotion L P"
  shows "outcomes L wb (compile S P) (initial (src_init P))
    \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co \<and> irrefl (hbr L P rfw)}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
    "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fs rem] .
  obtain g where g: "ginv L S P s g" "kw_ok L S P s g" using hb_reachable[OF s(1) rows wp sc] by blast
  show "ob \<in> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> hb_co_ok L P rfw co \<and> irrefl (hbr L P rfw)}"
    using final_hbr_irrefl[OF g s(2) wp rows(1-3)] final_hb_co[OF g(1) s(2) wp rows(1-3) g(2)]
      final_candidate[OF rows(1-3) wp g(1) s(2)] s(3) by blast
qed

end
