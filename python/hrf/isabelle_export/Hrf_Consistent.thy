(* hrf base theory: the candidate a machine run exhibits is consistent
   under OpenCL+RSP (step (4) of docs/isabelle.md's plan for [RSP15]'s
   soundness theorem). The model's eleven checks split in two: seven that
   need no happens-before (the local ones, global_coherence_po,
   rmw_atomicity, scoped_sc) and four that read its global happens-before
   (global_hb_acyclic, global_coherence, rf_hb, global_nonatomic_rf). A
   race-free program whose remote operations promote nothing shares a
   location across threads only by atomics (race_free_atomic), so every step of the
   model's happens-before, its release sequences included, is in hrf's
   hbr, along which Hrf_Happens proved coherence and acyclicity. Hence:
   on one device, every outcome of such a program compiled by rows like
   rsp-new's is one OpenCL+RSP allows, and with Hrf_Simulation's deadlock
   freedom the scheme is sound on it (Hrf_Mapping's sound_on). A remote
   operation may also meet a plain access of its device (opencl-rsp's scope
   inclusion): read as a work-group-scope atomic (plain_as_wg), whose rows
   are the same, the program keeps its outcomes and race freedom
   (machine_sound_on_plain). Race freedom gives the rest of what the proof
   asks of the program: a remote operation at device scope meets accesses
   of its own device only (race_free_remote_local), so it promotes as the
   machine invariants cover (remote_load_promotion), and the scheme is
   sound on every program it compiles (scheme_sound: [RSP15]'s theorem,
   Hrf_Mapping's sound). Written by hand, every proof complete. *)
theory Hrf_Consistent
  imports Hrf_Atomicity
begin

section \<open>OpenCL+RSP's axioms that need no happens-before\<close>

text \<open>The model's checks (Model_opencl_rsp) in two parts: the four that
  read its global happens-before, and the seven others.\<close>
definition rsp_hb_axioms :: "execution \<Rightarrow> bool" where
  "rsp_hb_axioms X \<longleftrightarrow> irrefl (opencl_rsp_global_hb_acyclic X) \<and> irrefl (opencl_rsp_global_coherence X)
     \<and> irrefl (opencl_rsp_rf_hb X) \<and> opencl_rsp_global_nonatomic_rf X = {}"

definition rsp_other_axioms :: "execution \<Rightarrow> bool" where
  "rsp_other_axioms X \<longleftrightarrow> irrefl (opencl_rsp_local_hb_acyclic X) \<and> irrefl (opencl_rsp_local_coherence X)
     \<and> irrefl (opencl_rsp_global_coherence_po X) \<and> irrefl (opencl_rsp_local_coherence_po X)
     \<and> opencl_rsp_local_nonatomic_rf X = {} \<and> opencl_rsp_rmw_atomicity X = {} \<and> acyclic (opencl_rsp_scoped_sc X)"

lemma opencl_rsp_split: "opencl_rsp_consistent X \<longleftrightarrow> rsp_other_axioms X \<and> rsp_hb_axioms X"
  unfolding opencl_rsp_consistent_def rsp_other_axioms_def rsp_hb_axioms_def by blast

lemma src_co_lift: "trans cr \<Longrightarrow> co (src_exec L P f cr) = lift cr"
  unfolding co_def by (simp add: src_exec_def lift_trans trancl_id)

lemma src_po_lift: "po (src_exec L P f cr) = lift (src_po P)"
  unfolding po_def by (simp add: src_exec_def lift_trans src_po_trans trancl_id)

lemma lift_pair: "(enc a, enc b) \<in> lift r \<longleftrightarrow> (a, b) \<in> r"
  by (auto simp: lift_def)

lemma lift_enc: "p \<in> lift r \<Longrightarrow> \<exists>a b. p = (enc a, enc b) \<and> (a, b) \<in> r"
  by (auto simp: lift_def)

text \<open>[HRF14] sec. 4's RMW atomicity, per RMW, is the model's rmw_atomicity
  check of the candidate.\<close>
theorem cand_rmw_axiom:
  assumes c: "cand_ok P f cr v" and at: "\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P f cr t k"
  shows "opencl_rsp_rmw_atomicity (src_exec L P f cr) = {}"
proof (rule equals0I)
  let ?X = "src_exec L P f cr"
  fix p assume "p \<in> opencl_rsp_rmw_atomicity ?X"
  then obtain e1 e2 e3 e4 where p: "(e1, e4) \<in> rmw ?X" "(e2, e1) \<in> rf ?X" "(e2, e3) \<in> co ?X" "(e3, e4) \<in> co ?X"
    unfolding opencl_rsp_rmw_atomicity_def fr_def conv_is_converse by blast
  have tr: "trans cr" using c by (simp add: cand_ok_def)
  obtain t k where tk: "e1 = enc (Acc t k False)" "e4 = enc (Acc t k True)" "acc P t k True"
    using p(1) by (auto simp: src_exec_def lift_def src_rmw_def)
  obtain r where r: "is_rd P r" "e2 = enc (f r)" "e1 = enc r" using p(2) rf_XS by blast
  have rk: "r = Acc t k False" using r(3) tk(1) by simp
  have "(e2, e3) \<in> lift cr" using p(3) src_co_lift[OF tr] by simp
  then obtain a b where ab: "e2 = enc a" "e3 = enc b" "(a, b) \<in> cr" using lift_enc by blast
  have "(e3, e4) \<in> lift cr" using p(4) src_co_lift[OF tr] by simp
  then obtain b' d where bd: "e3 = enc b'" "e4 = enc d" "(b', d) \<in> cr" using lift_enc by blast
  have "a = f (Acc t k False)" using ab(1) r(2) rk by simp
  moreover have "b' = b" "d = Acc t k True" using bd(1,2) ab(2) tk(2) by simp_all
  ultimately have "(f (Acc t k False), b) \<in> cr" "(b, Acc t k True) \<in> cr" using ab(3) bd(3) by simp_all
  then show False using at tk(3) unfolding rmw_atomic_def by blast
qed

text \<open>The model's n145, (rf^-1)?; co; rf?, between two accesses: the write
  the first observes is coherence-before the one the second observes.\<close>
lemma n145_cases:
  assumes c: "cand_ok P f cr v" and p: "(e, e') \<in> opencl_rsp_n145 (src_exec L P f cr)"
  shows "\<exists>a d. e = enc a \<and> e' = enc d \<and> (is_wr P a \<or> is_rd P a) \<and> (is_wr P d \<or> is_rd P d)
     \<and> sloc P a = sloc P d \<and> ((if is_rd P a then f a else a), (if is_rd P d then f d else d)) \<in> cr"
proof -
  let ?X = "src_exec L P f cr"
  obtain e1 e2 where p: "(e, e1) \<in> opt ?X (conv (rf ?X))" "(e1, e2) \<in> co ?X" "(e2, e') \<in> opt ?X (rf ?X)"
    using assms(2) unfolding opencl_rsp_n145_def opencl_rsp_n141_def by blast
  have tr: "trans cr"
    and cw: "cr \<subseteq> {(w, w'). is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> (\<forall>x. w' \<noteq> Init x)}"
    and rl: "\<forall>r. is_rd P r \<longrightarrow> is_wr P (f r) \<and> sloc P (f r) = sloc P r"
    using c by (simp_all add: cand_ok_def)
  have "(e1, e2) \<in> lift cr" using p(2) src_co_lift[OF tr] by simp
  then obtain b1 b2 where bb: "e1 = enc b1" "e2 = enc b2" "(b1, b2) \<in> cr" using lift_enc by blast
  have w12: "is_wr P b1" "is_wr P b2" "sloc P b1 = sloc P b2" using bb(3) cw by blast+
  have ea: "\<exists>a. e = enc a \<and> (is_wr P a \<or> is_rd P a) \<and> b1 = (if is_rd P a then f a else a) \<and> sloc P b1 = sloc P a"
  proof (cases "(e, e1) \<in> conv (rf ?X)")
    case True
    then obtain r where "is_rd P r" "e1 = enc (f r)" "e = enc r" using rf_XS unfolding conv_is_converse by blast
    then show ?thesis using bb(1) rl by auto
  next
    case False
    then have "e1 = e" using p(1) by (auto simp: opt_def)
    then show ?thesis using bb(1) w12(1) rd_not_wr by auto
  qed
  have ed: "\<exists>d. e' = enc d \<and> (is_wr P d \<or> is_rd P d) \<and> b2 = (if is_rd P d then f d else d) \<and> sloc P b2 = sloc P d"
  proof (cases "(e2, e') \<in> rf ?X")
    case True
    then obtain r where "is_rd P r" "e2 = enc (f r)" "e' = enc r" using rf_XS by blast
    then show ?thesis using bb(2) rl by auto
  next
    case False
    then have "e2 = e'" using p(3) by (auto simp: opt_def)
    then show ?thesis using bb(2) w12(2) rd_not_wr by auto
  qed
  obtain a where a: "e = enc a" "is_wr P a \<or> is_rd P a" "b1 = (if is_rd P a then f a else a)" "sloc P b1 = sloc P a"
    using ea by blast
  obtain d where d: "e' = enc d" "is_wr P d \<or> is_rd P d" "b2 = (if is_rd P d then f d else d)" "sloc P b2 = sloc P d"
    using ed by blast
  have "sloc P a = sloc P d" using a(4) d(4) w12(3) by simp
  moreover have "((if is_rd P a then f a else a), (if is_rd P d then f d else d)) \<in> cr"
    using bb(3) unfolding a(3) d(3) .
  ultimately show ?thesis using a(1,2) d(1,2) by blast
qed

text \<open>Coherence per location along program order (Hrf_Coherence's
  po_loc_ok) is the model's global_coherence_po check.\<close>
theorem cand_coherence_po:
  assumes c: "cand_ok P f cr v" and pl: "po_loc_ok P f cr"
  shows "irrefl (opencl_rsp_global_coherence_po (src_exec L P f cr))"
proof (rule irreflI, rule notI)
  let ?X = "src_exec L P f cr"
  fix e assume "(e, e) \<in> opencl_rsp_global_coherence_po ?X"
  then obtain e' where ee: "(e, e') \<in> opencl_rsp_n145 ?X" "(e', e) \<in> po ?X"
    unfolding opencl_rsp_global_coherence_po_def by blast
  obtain a d where ad: "e = enc a" "e' = enc d" "is_wr P a \<or> is_rd P a" "is_wr P d \<or> is_rd P d"
      "sloc P a = sloc P d" "((if is_rd P a then f a else a), (if is_rd P d then f d else d)) \<in> cr"
    using n145_cases[OF c ee(1)] by blast
  have "(enc d, enc a) \<in> lift (src_po P)" using ee(2) ad(1,2) src_po_lift by simp
  then have po: "(d, a) \<in> src_po P" by (simp add: lift_pair)
  have ir: "irrefl cr" and tr: "trans cr" using c by (simp_all add: cand_ok_def)
  have sl: "sloc P d = sloc P a" using ad(5) by simp
  \<comment> \<open>by po_loc_ok, what d observes is what a observes or coherence-before it\<close>
  have rev: "(if is_rd P d then f d else d) = (if is_rd P a then f a else a)
    \<or> ((if is_rd P d then f d else d), (if is_rd P a then f a else a)) \<in> cr"
    using pl po sl ad(3,4) unfolding po_loc_ok_def by (cases "is_rd P a"; cases "is_rd P d") auto
  then show False
  proof
    assume "(if is_rd P d then f d else d) = (if is_rd P a then f a else a)"
    then show False using ad(6) ir by (simp add: irrefl_def)
  next
    assume "((if is_rd P d then f d else d), (if is_rd P a then f a else a)) \<in> cr"
    then show False using ad(6) ir tr by (meson irrefl_def transD)
  qed
qed

text \<open>The local-memory checks and scoped SC hold of every candidate: the
  machine's memory is global, and the source operations carry no seq_cst
  (Hrf_Source_Opencl).\<close>
theorem cand_other_axioms:
  assumes c: "cand_ok P f cr v" and pl: "po_loc_ok P f cr"
    and at: "\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P f cr t k"
  shows "rsp_other_axioms (src_exec L P f cr)"
proof -
  let ?X = "src_exec L P f cr"
  have l: "opencl_rsp_n140 ?X = {}" by (rule XS_lhb)
  have c2: "irrefl (opencl_rsp_local_hb_acyclic ?X)" by (simp add: opencl_rsp_local_hb_acyclic_def l irrefl_def)
  have c4: "irrefl (opencl_rsp_local_coherence ?X)" by (simp add: opencl_rsp_local_coherence_def l irrefl_def)
  have c6: "irrefl (opencl_rsp_local_coherence_po ?X)"
    by (simp add: opencl_rsp_local_coherence_po_def XS_n125 irrefl_def)
  have c9: "opencl_rsp_local_nonatomic_rf ?X = {}" by (simp add: opencl_rsp_local_nonatomic_rf_def tag_XS_none)
  have c11: "acyclic (opencl_rsp_scoped_sc ?X)" by (simp add: opencl_rsp_scoped_sc_def XS_n103 acyclic_def)
  show ?thesis unfolding rsp_other_axioms_def
    using c2 c4 cand_coherence_po[OF c pl] c6 c9 cand_rmw_axiom[OF c at] c11 by blast
qed

section \<open>A race-free program shares locations across threads only by atomics\<close>

text \<open>A cross-thread conflict is between atomics.\<close>
definition atomic_conflicts :: "src_program \<Rightarrow> bool" where
  "atomic_conflicts P \<longleftrightarrow> (\<forall>a b. is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
     \<and> sthread a \<noteq> None \<and> sthread b \<noteq> None \<and> sthread a \<noteq> sthread b \<longrightarrow> atomic_ev P a \<and> atomic_ev P b)"

lemma n82_atomic:
  assumes "(enc c, d) \<in> opencl_rsp_n82 (src_exec L P f cs)"
  shows "atomic_ev P c"
proof -
  have "enc c \<in> scoped (src_exec L P f cs)" using assms unfolding opencl_rsp_n82_def scoped_def by blast
  then obtain s where "c \<in> src_tags P s" "s \<in> scoped_names" by (auto simp: scoped_def tag_XS scoped_names_def)
  then show ?thesis using tags_scoped by (fastforce simp: atomic_ev_def)
qed

theorem race_free_atomic:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and rem: "load_promotion L P"
  shows "atomic_conflicts P"
  unfolding atomic_conflicts_def
proof (intro allI impI)
  fix a b assume h: "is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
    \<and> sthread a \<noteq> None \<and> sthread b \<noteq> None \<and> sthread a \<noteq> sthread b"
  obtain t i p where a: "a = Acc t i p" using h by (cases a) auto
  obtain u j q where b: "b = Acc u j q" using h by (cases b) auto
  have hw: "is_wr P (Acc t i p)" "is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)" "t \<noteq> u"
    "sloc P (Acc t i p) = sloc P (Acc u j q)"
    using h a b by simp_all
  from race_free_n82[OF nr rfree fin rem hw]
  have "atomic_ev P (Acc t i p) \<and> atomic_ev P (Acc u j False)"
  proof (elim disjE)
    assume "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
      \<and> (enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})"
    then show ?thesis by (blast intro: n82_atomic)
  next
    assume "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x))
       \<and> \<not> is_wr P (Acc u j q) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
    then have "atomic_ev P (Acc t i p)" "op_scope (ins P u j) \<noteq> NonAtomic" by (blast intro: n82_atomic)+
    then show ?thesis by (simp add: atomic_ev_def)
  next
    assume "(enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> ((\<exists>sc r x. ins P u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins P u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins P u j = Op (Store sc True) r x))
       \<and> \<not> op_remote (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic"
    then have "atomic_ev P (Acc u j False)" "op_scope (ins P t i) \<noteq> NonAtomic" by (blast intro: n82_atomic)+
    then show ?thesis by (simp add: atomic_ev_def)
  next
    assume "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 (src_exec L P (\<lambda>r. r) {})
       \<and> (rstore_ev P (Acc t i p) \<or> (\<exists>sc r x. ins P t i = Op (FetchInc sc True) r x)) \<and> is_wr P (Acc u j q)
       \<and> \<not> op_remote (ins P u j) \<and> op_scope (ins P u j) \<noteq> NonAtomic"
    then have "atomic_ev P (Acc t i p)" "op_scope (ins P u j) \<noteq> NonAtomic" by (blast intro: n82_atomic)+
    then show ?thesis by (simp add: atomic_ev_def)
  qed
  then show "atomic_ev P a \<and> atomic_ev P b" using a b by (simp add: atomic_ev_def)
qed

lemma src_po_total:
  assumes "acc P t i p" "acc P t j q" "Acc t i p \<noteq> Acc t j q"
  shows "(Acc t i p, Acc t j q) \<in> src_po P \<or> (Acc t j q, Acc t i p) \<in> src_po P"
proof -
  have "i < j \<or> j < i \<or> (i = j \<and> \<not> p \<and> q) \<or> (i = j \<and> \<not> q \<and> p)" using assms(3) by auto
  then show ?thesis using assms(1,2) by (auto simp: src_po_def)
qed

text \<open>Where a read and the write it reads are of one thread, the write
  comes first in program order.\<close>
lemma rf_po:
  assumes c: "cand_ok P f cr v" and pl: "po_loc_ok P f cr" and r: "is_rd P r"
    and th: "sthread (f r) = sthread r"
  shows "(f r, r) \<in> src_po P"
proof -
  obtain u j q where ru: "r = Acc u j q" using r by (cases r) auto
  have w: "is_wr P (f r)" "sloc P (f r) = sloc P r" using c r by (auto simp: cand_ok_def)
  obtain i p where wt: "f r = Acc u i p" using th ru w(1) by (cases "f r") auto
  have wt2: "f (Acc u j q) = Acc u i p" using wt[unfolded ru] .
  have ir: "irrefl cr" using c by (simp add: cand_ok_def)
  have ne: "f r \<noteq> r" using w(1) r rd_not_wr by metis
  have "acc P u i p" "acc P u j q" using w(1) r wt ru by simp_all
  then have "(f r, r) \<in> src_po P \<or> (r, f r) \<in> src_po P"
    using src_po_total[of P u i p j q] ne unfolding ru wt2 by simp
  moreover have "(r, f r) \<notin> src_po P"
  proof
    assume "(r, f r) \<in> src_po P"
    then have "(f r, f r) \<in> cr" using pl w r unfolding po_loc_ok_def by simp
    then show False using ir by (simp add: irrefl_def)
  qed
  ultimately show ?thesis by blast
qed

text \<open>A read of a write other than the initial one is after it in
  happens-before: in program order, or, by another thread, atomics in
  each other's scope.\<close>
lemma rf_hbr:
  assumes c: "cand_ok P f cr v" and pl: "po_loc_ok P f cr" and ac: "atomic_conflicts P"
    and sc: "scoped_conflicts L P" and ds: "dev_sys L P" and r: "is_rd P r" and ni: "\<forall>x. f r \<noteq> Init x"
  shows "(f r, r) \<in> hbr L P f"
proof -
  obtain u j q where ru: "r = Acc u j q" using r by (cases r) auto
  obtain t i p where wt: "f r = Acc t i p" using ni by (cases "f r") auto
  have w: "is_wr P (f r)" "sloc P (f r) = sloc P r" using c r by (auto simp: cand_ok_def)
  have ir: "irrefl cr" using c by (simp add: cand_ok_def)
  show ?thesis
  proof (cases "t = u")
    case True
    then have "(f r, r) \<in> src_po P" using rf_po[OF c pl r] wt ru by simp
    then show ?thesis unfolding hbr_def by blast
  next
    case False
    have "sthread (f r) \<noteq> None" "sthread r \<noteq> None" "sthread (f r) \<noteq> sthread r" using False wt ru by simp_all
    then have at: "atomic_ev P (f r) \<and> atomic_ev P r"
      using ac w r unfolding atomic_conflicts_def by blast
    have th: "t \<in> src_threads P" "u \<in> src_threads P" using w(1) r wt ru by (simp_all add: acc_def)
    have "ewg L (f r) = ewg L r \<or> ((wide_ev P (f r) \<and> wide_ev P r \<or> remote_ev P (f r) \<or> remote_ev P r)
        \<and> map_option (dev_of L) (ewg L (f r)) = map_option (dev_of L) (ewg L r)) \<or> (sys_ev P (f r) \<and> sys_ev P r)"
    proof (cases "wg_of L t = wg_of L u")
      case True
      then show ?thesis using wt ru by simp
    next
      case False
      have "ewg L (f r) \<noteq> None" "ewg L r \<noteq> None" "ewg L (f r) \<noteq> ewg L r" using False wt ru by simp_all
      then have "sc_pair P (f r) r"
        using sc[unfolded scoped_conflicts_def, rule_format, of "f r" r] w r by simp
      then have "wide_ev P (f r) \<and> wide_ev P r \<or> remote_ev P (f r) \<or> remote_ev P r"
        using racq_remote rload_racq rstore_remote unfolding sc_pair_def by blast
      show ?thesis
      proof (cases "dv L (f r) = dv L r")
        case True
        then show ?thesis using \<open>wide_ev P (f r) \<and> wide_ev P r \<or> remote_ev P (f r) \<or> remote_ev P r\<close> wt ru
          by (simp add: dv_def)
      next
        case False
        \<comment> \<open>across devices: all-devices atomics (dev_sys), which synchronise\<close>
        then show ?thesis
          using ds[unfolded dev_sys_def, rule_format, of "f r" r] w r \<open>ewg L (f r) \<noteq> None\<close> \<open>ewg L r \<noteq> None\<close>
          by simp
      qed
    qed
    then show ?thesis using at r unfolding hbr_def by blast
  qed
qed

text \<open>A thread's writes in coherence are in its program order.\<close>
lemma co_po:
  assumes c: "cand_ok P f cr v" and pl: "po_loc_ok P f cr" and ab: "(a, b) \<in> cr"
    and th: "sthread a = sthread b" "sthread a \<noteq> None"
  shows "(a, b) \<in> src_po P"
proof -
  have tr: "trans cr" and ir: "irrefl cr"
    and cw: "cr \<subseteq> {(w, w'). is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> (\<forall>x. w' \<noteq> Init x)}"
    using c by (simp_all add: cand_ok_def)
  have w: "is_wr P a" "is_wr P b" "sloc P a = sloc P b" using ab cw by blast+
  obtain t i p where at: "a = Acc t i p" using th by (cases a) auto
  obtain u j q where bu: "b = Acc u j q" using th w(2) ab cw by (cases b) auto
  have tu: "u = t" using th at bu by simp
  have ne: "a \<noteq> b" using ab ir by (auto simp: irrefl_def)
  have "(a, b) \<in> src_po P \<or> (b, a) \<in> src_po P"
    using src_po_total[of P t i p j q] w at bu tu ne by auto
  moreover have "(b, a) \<notin> src_po P"
  proof
    assume "(b, a) \<in> src_po P"
    then have "(b, a) \<in> cr" using pl w unfolding po_loc_ok_def by simp
    then show False using ab tr ir by (meson irrefl_def transD)
  qed
  ultimately show ?thesis by blast
qed

section \<open>The model's happens-before is in hbr\<close>

lemma hbr_trans: "(a, b) \<in> hbr L P f \<Longrightarrow> (b, c) \<in> hbr L P f \<Longrightarrow> (a, c) \<in> hbr L P f"
  unfolding hbr_def by (rule trancl_trans)

lemma po_hbr: "(a, b) \<in> src_po P \<Longrightarrow> (a, b) \<in> hbr L P f"
  unfolding hbr_def by blast

lemma tags_A: "src_tags P ''A'' = {e. is_ev P e \<and> atomic_ev P e}"
  by (auto simp: src_tags_def atomic_ev_def split: sev.splits)

lemma n26_XS: "opencl_rsp_n26 (src_exec L P f cs) = enc ` {e. is_ev P e \<and> \<not> nal_ev P e}"
  by (auto simp: opencl_rsp_n26_def events_XS tag_XS tags_nal)

lemma n35_XS:
  assumes "(enc a, enc u) \<in> opencl_rsp_n35 (src_exec L P f cs)"
  shows "(sthread a = sthread u \<and> sthread a \<noteq> None) \<or> (\<exists>t k. u = Acc t k True \<and> acc P t k False \<and> acc P t k True)"
  using assms unfolding opencl_rsp_n35_def
  by (auto simp: same_thread_attr_def pairs_where_def src_exec_def universal_def ran_of_def lift_def src_rmw_def
      split: option.splits)

lemma XS_n92_rs: "opencl_rsp_n92 (src_exec L P f cs) \<subseteq> (Id_on (tag (src_exec L P f cs) ''A''
    \<inter> tag (src_exec L P f cs) ''W'') O opencl_rsp_n40 (src_exec L P f cs)) O rf (src_exec L P f cs)"
  unfolding opencl_rsp_n92_def XS_n15 XS_n52 opencl_rsp_n21_def opencl_rsp_n49_def by blast

text \<open>A candidate with what the machine guarantees of the one a run
  exhibits (Hrf_Coherence, Hrf_Atomicity), of a program whose cross-thread
  conflicts are between atomics, scoped ones across work-groups, on one
  device.\<close>
locale rsp_cand =
  fixes L :: layout and P :: src_program and f :: "sev \<Rightarrow> sev" and cr :: "sev rel"
    and v :: "sev \<Rightarrow> int"
  assumes c: "cand_ok P f cr v" and pl: "po_loc_ok P f cr"
    and at: "\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P f cr t k"
    and ac: "atomic_conflicts P" and sc: "scoped_conflicts L P" and ds: "dev_sys L P"
    and fin: "finite (src_threads P)"
begin

lemma cand_facts:
  "trans cr" "irrefl cr"
  "cr \<subseteq> {(w, w'). is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> (\<forall>x. w' \<noteq> Init x)}"
  "\<forall>w w'. is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> w \<noteq> w' \<longrightarrow> (w, w') \<in> cr \<or> (w', w) \<in> cr"
  "\<forall>r. is_rd P r \<longrightarrow> is_wr P (f r) \<and> sloc P (f r) = sloc P r"
  using c by (simp_all add: cand_ok_def)

lemma n28_XS: "(enc x, enc y) \<in> opencl_rsp_n28 (src_exec L P f cr) \<longleftrightarrow> (x, y) \<in> cr \<and> \<not> nal_ev P x \<and> \<not> nal_ev P y"
proof -
  have "(x, y) \<in> cr \<Longrightarrow> is_ev P x \<and> is_ev P y" using cand_facts(3) ev_of by blast
  then show ?thesis unfolding opencl_rsp_n28_def src_co_lift[OF cand_facts(1)] n26_XS by (auto simp: lift_pair)
qed

lemma n28_trans: "trans (opencl_rsp_n28 (src_exec L P f cr))"
proof -
  have "trans (co (src_exec L P f cr))" using src_co_lift[OF cand_facts(1)] lift_trans[OF cand_facts(1)] by simp
  then show ?thesis unfolding opencl_rsp_n28_def trans_def by blast
qed

lemma co_wf: "wf cr"
proof (rule finite_acyclic_wf)
  have "cr \<subseteq> Collect (is_ev P) \<times> Collect (is_ev P)" using cand_facts(3) ev_of by blast
  then show "finite cr" using finite_src_events[OF fin] by (meson finite_SigmaI finite_subset)
  show "acyclic cr" using cand_facts(1,2) by (simp add: acyclic_def trancl_id irrefl_def)
qed

text \<open>A release sequence ([BDW16]'s, the model's n40) goes along
  happens-before: a write of the head's thread is after it in program
  order, and an RMW reads the write right before it in coherence, itself
  in the sequence or its head.\<close>
lemma relseq_hbr:
  assumes a: "atomic_ev P a"
  shows "(enc a, enc u) \<in> opencl_rsp_n28 (src_exec L P f cr) \<inter> (opencl_rsp_n35 (src_exec L P f cr)
      - ((opencl_rsp_n28 (src_exec L P f cr) - opencl_rsp_n35 (src_exec L P f cr)) O opencl_rsp_n28 (src_exec L P f cr)))
    \<Longrightarrow> (a, u) \<in> hbr L P f"
  using co_wf
proof (induction u rule: wf_induct_rule)
  case (less u)
  let ?X = "src_exec L P f cr"
  let ?R = "opencl_rsp_n28 ?X" and ?S = "opencl_rsp_n35 ?X"
  have au: "(a, u) \<in> cr" "\<not> nal_ev P a" "\<not> nal_ev P u" using less.prems n28_XS by blast+
  have sq: "(enc a, enc u) \<in> ?S" "(enc a, enc u) \<notin> (?R - ?S) O ?R" using less.prems by blast+
  have wa: "is_wr P a" "is_wr P u" "sloc P a = sloc P u" using au(1) cand_facts(3) by blast+
  from n35_XS[OF sq(1)] show ?case
  proof
    assume "sthread a = sthread u \<and> sthread a \<noteq> None"
    then have "(a, u) \<in> src_po P" using co_po[OF c pl au(1)] by blast
    then show ?thesis by (rule po_hbr)
  next
    assume "\<exists>t k. u = Acc t k True \<and> acc P t k False \<and> acc P t k True"
    then obtain t k where u: "u = Acc t k True" "acc P t k False" "acc P t k True" by blast
    let ?r = "Acc t k False"
    obtain sc' rm r' x where ik: "ins P t k = Op (FetchInc sc' rm) r' x"
      using u(3) wr_part[of "ins P t k"] rd_part[of "ins P t k" True] by (auto simp: acc_def)
    have rr: "is_rd P ?r" using u(2) ik by simp
    have po: "(?r, u) \<in> src_po P" using u by (auto simp: src_po_def)
    have sl: "sloc P ?r = sloc P u" using u by simp
    have fu: "(f ?r, u) \<in> cr" using pl rr wa(2) po sl unfolding po_loc_ok_def by blast
    have wr: "is_wr P (f ?r)" "sloc P (f ?r) = sloc P ?r" using cand_facts(5) rr by blast+
    have rh: "(f ?r, ?r) \<in> hbr L P f" if "\<forall>x. f ?r \<noteq> Init x" using rf_hbr[OF c pl ac sc ds rr that] .
    have ph: "(?r, u) \<in> hbr L P f" using po by (rule po_hbr)
    have ra: "rmw_atomic P f cr t k" using at u(3) by blast
    have "sloc P a = sloc P (f ?r)" using wa(3) wr(2) sl by simp
    then have "a = f ?r \<or> (f ?r, a) \<in> cr \<or> (a, f ?r) \<in> cr" using cand_facts(4) wa(1) wr(1) by blast
    then show ?thesis
    proof (elim disjE)
      assume e: "a = f ?r"
      have "\<forall>x. f ?r \<noteq> Init x" using a e by (auto simp: atomic_ev_def)
      then show ?thesis using rh ph e hbr_trans by metis
    next
      assume "(f ?r, a) \<in> cr"
      then show ?thesis using au(1) ra u(1) unfolding rmw_atomic_def by blast
    next
      assume af: "(a, f ?r) \<in> cr"
      have ni: "\<forall>x. f ?r \<noteq> Init x" using af cand_facts(3) by blast
      have nf: "\<not> nal_ev P (f ?r)" using au(2) nal_same[of P a "f ?r"] wa(3) wr(2) sl by simp
      have in28: "(enc a, enc (f ?r)) \<in> ?R" using n28_XS af au(2) nf by blast
      have fu28: "(enc (f ?r), enc u) \<in> ?R" using n28_XS fu nf au(3) by blast
      have inS: "(enc a, enc (f ?r)) \<in> ?S" using sq(2) in28 fu28 by blast
      have notin: "(enc a, enc (f ?r)) \<notin> (?R - ?S) O ?R"
      proof
        assume "(enc a, enc (f ?r)) \<in> (?R - ?S) O ?R"
        then obtain y where y: "(enc a, y) \<in> ?R - ?S" "(y, enc (f ?r)) \<in> ?R" by blast
        have "(y, enc u) \<in> ?R" using y(2) fu28 n28_trans by (meson transD)
        then show False using sq(2) y(1) by blast
      qed
      have "(a, f ?r) \<in> hbr L P f" using less.IH[OF fu] in28 inS notin by blast
      then show ?thesis using rh[OF ni] ph hbr_trans by metis
    qed
  qed
qed


text \<open>A synchronisation edge of the model (n92: from a release, through its
  release sequence and a read of it, to an acquire) is in hbr.\<close>
lemma n92_hbr:
  assumes p: "(x, y) \<in> opencl_rsp_n92 (src_exec L P f cr)"
  shows "\<exists>a r. x = enc a \<and> y = enc r \<and> is_rd P r \<and> (a, r) \<in> hbr L P f"
proof -
  let ?X = "src_exec L P f cr"
  have "(x, y) \<in> (Id_on (tag ?X ''A'' \<inter> tag ?X ''W'') O opencl_rsp_n40 ?X) O rf ?X"
    using p XS_n92_rs by blast
  then obtain z where z: "x \<in> tag ?X ''A'' \<inter> tag ?X ''W''" "(x, z) \<in> opencl_rsp_n40 ?X" "(z, y) \<in> rf ?X"
    by blast
  then have "x \<in> tag ?X ''A'' \<inter> tag ?X ''W''" by blast
  then obtain a where a: "x = enc a" "atomic_ev P a" "is_wr P a"
    by (auto simp: tag_XS tags_A tags_W)
  obtain r where r: "is_rd P r" "z = enc (f r)" "y = enc r" using z(3) rf_XS by blast
  let ?A = "opencl_rsp_n28 ?X \<inter> (opencl_rsp_n35 ?X - ((opencl_rsp_n28 ?X - opencl_rsp_n35 ?X) O opencl_rsp_n28 ?X))"
  have fr: "a = f r \<or> (a, f r) \<in> hbr L P f \<and> (\<forall>x. f r \<noteq> Init x)"
  proof (cases "x = z")
    case True
    then show ?thesis using a(1) r(2) by simp
  next
    case False
    have "(x, z) \<in> ?A \<union> Id_on (events ?X)" using z(2) unfolding opencl_rsp_n40_def opt_def .
    then have "(x, z) \<in> ?A" using False by blast
    then have m: "(enc a, enc (f r)) \<in> ?A" unfolding a(1) r(2) .
    then have "(enc a, enc (f r)) \<in> opencl_rsp_n28 ?X" by (rule IntD1)
    then have "(a, f r) \<in> cr" using n28_XS by blast
    then have "\<forall>x. f r \<noteq> Init x" using cand_facts(3) by blast
    moreover have "(a, f r) \<in> hbr L P f" using relseq_hbr[OF a(2) m] .
    ultimately show ?thesis by blast
  qed
  have "\<forall>x. f r \<noteq> Init x" using fr a(2) by (auto simp: atomic_ev_def)
  then have "(f r, r) \<in> hbr L P f" using rf_hbr[OF c pl ac sc ds r(1)] by blast
  then have "(a, r) \<in> hbr L P f" using fr hbr_trans by metis
  then show ?thesis using a(1) r by blast
qed

text \<open>Each step of the model's global happens-before ends at a thread
  event and is in hbr, or starts at an initial write.\<close>
lemma ghb_step:
  assumes p: "(x, y) \<in> (opencl_rsp_n100 (src_exec L P f cr) \<inter> opencl_rsp_n134 (src_exec L P f cr))
    \<union> opencl_rsp_n92 (src_exec L P f cr)"
  shows "\<exists>a b. x = enc a \<and> y = enc b \<and> is_ev P b \<and> (\<forall>z. b \<noteq> Init z) \<and> ((a, b) \<in> hbr L P f \<or> (\<exists>z. a = Init z))"
proof -
  let ?X = "src_exec L P f cr"
  consider "(x, y) \<in> po ?X" | "(x, y) \<in> tag ?X ''IW'' \<times> opencl_rsp_n132 ?X" | "(x, y) \<in> opencl_rsp_n92 ?X"
    using p unfolding opencl_rsp_n134_def by blast
  then show ?thesis
  proof cases
    case 1
    then have "(x, y) \<in> lift (src_po P)" using src_po_lift by simp
    then obtain a b where ab: "x = enc a" "y = enc b" "(a, b) \<in> src_po P" using lift_enc by blast
    have "is_ev P b \<and> (\<forall>z. b \<noteq> Init z)" using ab(3) by (auto simp: src_po_def)
    then show ?thesis using ab po_hbr by blast
  next
    case 2
    then obtain z b where zb: "x = enc (Init z)" "y = enc b" "is_ev P b" "b \<notin> Init ` src_locs P"
      by (auto simp: opencl_rsp_n132_def tag_XS tags_IW events_XS)
    have "\<forall>z. b \<noteq> Init z" using zb(3,4) by auto
    then show ?thesis using zb by blast
  next
    case 3
    then obtain a r where ar: "x = enc a" "y = enc r" "is_rd P r" "(a, r) \<in> hbr L P f" using n92_hbr by blast
    have "is_ev P r \<and> (\<forall>z. r \<noteq> Init z)" using ar(3) ev_of by (cases r) auto
    then show ?thesis using ar by blast
  qed
qed

lemma ghb_hbr:
  assumes "(x, y) \<in> opencl_rsp_n137 (src_exec L P f cr)"
  shows "\<exists>a b. x = enc a \<and> y = enc b \<and> is_ev P b \<and> (\<forall>z. b \<noteq> Init z) \<and> ((a, b) \<in> hbr L P f \<or> (\<exists>z. a = Init z))"
  using assms unfolding XS_ghb_gen
proof (induction rule: trancl_induct)
  case (base y)
  then show ?case by (rule ghb_step)
next
  case (step y w)
  obtain a b where ab: "x = enc a" "y = enc b" "\<forall>z. b \<noteq> Init z" "(a, b) \<in> hbr L P f \<or> (\<exists>z. a = Init z)"
    using step.IH by blast
  obtain b' c where bc: "y = enc b'" "w = enc c" "is_ev P c" "\<forall>z. c \<noteq> Init z" "(b', c) \<in> hbr L P f \<or> (\<exists>z. b' = Init z)"
    using ghb_step[OF step(2)] by blast
  have "b' = b" using ab(2) bc(1) by simp
  then have "(b, c) \<in> hbr L P f" using bc(5) ab(3) by blast
  then have "(a, c) \<in> hbr L P f \<or> (\<exists>z. a = Init z)" using ab(4) hbr_trans by blast
  then show ?case using ab(1) bc(2-4) by blast
qed

text \<open>So the four checks hold where happens-before is acyclic and
  coherence agrees with it ([HRF14]'s coherence, hb_co_ok and hb_co_rd_ok).\<close>
theorem cand_hb_axioms:
  assumes hc: "hb_co_ok L P f cr" and hr: "hb_co_rd_ok L P f cr" and ir: "irrefl (hbr L P f)"
  shows "rsp_hb_axioms (src_exec L P f cr)"
proof -
  let ?X = "src_exec L P f cr"
  let ?G = "opencl_rsp_n137 ?X"
  have cyc: False if "(w, w') \<in> cr" "(w', w) \<in> cr" for w w'
    using that cand_facts(1,2) by (meson irrefl_def transD)
  have irr: "(x, x) \<notin> ?G" for x
  proof
    assume "(x, x) \<in> ?G"
    then obtain a b where "x = enc a" "x = enc b" "(a, b) \<in> hbr L P f \<or> (\<exists>z. a = Init z)" "\<forall>z. b \<noteq> Init z"
      using ghb_hbr by blast
    then have "(a, a) \<in> hbr L P f" by auto
    then show False using ir by (simp add: irrefl_def)
  qed
  have c1: "irrefl (opencl_rsp_global_hb_acyclic ?X)"
    unfolding opencl_rsp_global_hb_acyclic_def irrefl_def using irr by blast
  have c2: "irrefl (opencl_rsp_global_coherence ?X)"
  proof (rule irreflI, rule notI)
    fix e assume "(e, e) \<in> opencl_rsp_global_coherence ?X"
    then obtain e' where ee: "(e, e') \<in> opencl_rsp_n145 ?X" "(e', e) \<in> ?G"
      unfolding opencl_rsp_global_coherence_def by blast
    obtain a d where ad: "e = enc a" "e' = enc d" "is_wr P a \<or> is_rd P a" "is_wr P d \<or> is_rd P d"
      "sloc P a = sloc P d" "((if is_rd P a then f a else a), (if is_rd P d then f d else d)) \<in> cr"
      using n145_cases[OF c ee(1)] by blast
    obtain d' a' where g: "e' = enc d'" "e = enc a'" "(d', a') \<in> hbr L P f \<or> (\<exists>z. d' = Init z)"
      using ghb_hbr[OF ee(2)] by blast
    have "d' = d" "a' = a" using g(1,2) ad(1,2) by simp_all
    then have dg: "(d, a) \<in> hbr L P f \<or> (\<exists>z. d = Init z)" using g(3) by simp
    show False
    proof (cases "\<exists>z. d = Init z")
      case True
      then show False using ad(6) cand_facts(3) by auto
    next
      case False
      then have h: "(d, a) \<in> hbr L P f" using dg by blast
      show False
      proof (cases "is_rd P a")
        case True
        have "sloc P d = sloc P a" using ad(5) by simp
        then have "(if is_rd P d then f d else d) = f a \<or> ((if is_rd P d then f d else d), f a) \<in> cr"
          using hr h ad(4) True unfolding hb_co_rd_ok_def by blast
        moreover have o6: "(f a, (if is_rd P d then f d else d)) \<in> cr" using ad(6) True by simp
        ultimately show False
        proof (elim disjE)
          assume "(if is_rd P d then f d else d) = f a"
          then show False using o6 cand_facts(2) by (simp add: irrefl_def)
        next
          assume "((if is_rd P d then f d else d), f a) \<in> cr"
          then show False using cyc[OF o6] by blast
        qed
      next
        case False
        have "sloc P d = sloc P a" "is_wr P a" using ad(3,5) False by simp_all
        then have "((if is_rd P d then f d else d), a) \<in> cr"
          using hc h ad(4) unfolding hb_co_ok_def by blast
        moreover have "(a, (if is_rd P d then f d else d)) \<in> cr" using ad(6) False by simp
        ultimately show False using cyc by blast
      qed
    qed
  qed
  have c3: "irrefl (opencl_rsp_rf_hb ?X)"
  proof (rule irreflI, rule notI)
    fix e assume "(e, e) \<in> opencl_rsp_rf_hb ?X"
    then obtain e' where ee: "(e, e') \<in> rf ?X" "(e', e) \<in> ?G"
      unfolding opencl_rsp_rf_hb_def opencl_rsp_n152_def XS_lhb by blast
    obtain r where r: "is_rd P r" "e = enc (f r)" "e' = enc r" using ee(1) rf_XS by blast
    obtain a b where g: "e' = enc a" "e = enc b" "(a, b) \<in> hbr L P f \<or> (\<exists>z. a = Init z)"
      using ghb_hbr[OF ee(2)] by blast
    have "a = r" "b = f r" using g(1,2) r(2,3) by simp_all
    then have h: "(r, f r) \<in> hbr L P f" using g(3) r(1) by auto
    have wf: "is_wr P (f r)" "sloc P r = sloc P (f r)" using cand_facts(5) r(1) by simp_all
    have "((if is_rd P r then f r else r), f r) \<in> cr" using hc h r(1) wf unfolding hb_co_ok_def by blast
    then have "(f r, f r) \<in> cr" using r(1) by simp
    then show False using cand_facts(2) by (simp add: irrefl_def)
  qed
  have c4: "opencl_rsp_global_nonatomic_rf ?X = {}"
  proof (rule equals0I)
    fix p assume p: "p \<in> opencl_rsp_global_nonatomic_rf ?X"
    have "p \<in> rf ?X O Id_on (tag ?X ''nonatomicloc'' \<inter> tag ?X ''global'')"
      using p unfolding opencl_rsp_global_nonatomic_rf_def by (rule DiffD1)
    then obtain e e' where ee: "p = (e, e')" "(e, e') \<in> rf ?X" "e' \<in> tag ?X ''nonatomicloc''"
      by blast
    obtain r where r: "is_rd P r" "e = enc (f r)" "e' = enc r" using ee(2) rf_XS by blast
    have nr: "nal_ev P r" using ee(3) r(3) by (simp add: tag_XS tags_nal)
    have w: "is_wr P (f r)" "sloc P (f r) = sloc P r" using cand_facts(5) r(1) by blast+
    have evs: "is_ev P (f r)" "is_ev P r" using w(1) r(1) ev_of by blast+
    have na: "\<not> atomic_ev P r" using nr r(1) nal_scope by (cases r) (auto simp: atomic_ev_def)
    have po_g: "(enc a, enc b) \<in> ?G" if "(a, b) \<in> src_po P" for a b
    proof -
      have "is_ev P a" "is_ev P b" using that by (auto simp: src_po_def)
      then have "(enc a, enc b) \<in> opencl_rsp_n100 ?X \<inter> opencl_rsp_n134 ?X"
        using that src_po_lift[of L P f cr] lift_pair[of a b "src_po P"]
        by (auto simp: opencl_rsp_n100_def opencl_rsp_n134_def tag_XS tags_global)
      then show ?thesis unfolding XS_ghb_gen by blast
    qed
    have hb1: "(e, e') \<in> ?G"
    proof (cases "\<exists>z. f r = Init z")
      case True
      then obtain z where z: "f r = Init z" by blast
      have "r \<notin> Init ` src_locs P" using r(1) by auto
      then have "(e, e') \<in> opencl_rsp_n100 ?X \<inter> opencl_rsp_n134 ?X"
        using z w(1) evs r(2,3)
        by (auto simp: opencl_rsp_n100_def opencl_rsp_n134_def opencl_rsp_n132_def tag_XS tags_global tags_IW events_XS)
      then show ?thesis unfolding XS_ghb_gen by blast
    next
      case False
      have "sthread (f r) = sthread r"
      proof (rule ccontr)
        assume "sthread (f r) \<noteq> sthread r"
        moreover have "sthread (f r) \<noteq> None" using False by (cases "f r") auto
        moreover have "sthread r \<noteq> None" using r(1) by (cases r) auto
        ultimately have "atomic_ev P r" using ac w r(1) unfolding atomic_conflicts_def by blast
        then show False using na by blast
      qed
      then have "(f r, r) \<in> src_po P" by (rule rf_po[OF c pl r(1)])
      then show ?thesis using po_g r(2,3) by blast
    qed
    have n157: "(e, e') \<in> opencl_rsp_n157 ?X" using w(1) r(1,2,3) by (simp add: opencl_rsp_n157_def tag_XS tags_W tags_R)
    have lc: "(e, e') \<in> loc ?X"
    proof -
      obtain x where "sloc P r = Some x" using r(1) rd_addr by (cases r) auto
      then show ?thesis using loc_XS w(2) evs r(2,3) by simp
    qed
    have nv: "(e, e') \<notin> ((?G \<inter> loc ?X) O opencl_rsp_n161 ?X) O ?G"
    proof
      assume "(e, e') \<in> ((?G \<inter> loc ?X) O opencl_rsp_n161 ?X) O ?G"
      then obtain y where y: "(e, y) \<in> ?G" "(e, y) \<in> loc ?X" "y \<in> tag ?X ''W''" "(y, e') \<in> ?G"
        unfolding opencl_rsp_n161_def by blast
      obtain w' b where g2: "y = enc w'" "e' = enc b" "(w', b) \<in> hbr L P f \<or> (\<exists>z. w' = Init z)"
        using ghb_hbr[OF y(4)] by blast
      obtain a0 b0 where g1: "e = enc a0" "y = enc b0" "\<forall>z. b0 \<noteq> Init z" "(a0, b0) \<in> hbr L P f \<or> (\<exists>z. a0 = Init z)"
        using ghb_hbr[OF y(1)] by blast
      have eq: "b = r" "b0 = w'" "a0 = f r" using g1(1,2) g2(1,2) r(2,3) by simp_all
      have ww: "is_wr P w'" using y(3) g2(1) by (simp add: tag_XS tags_W)
      have sl: "sloc P (f r) = sloc P w'" using y(2) g2(1) r(2) loc_XS by simp
      have h2: "(w', r) \<in> hbr L P f" using g2(3) g1(3) eq by auto
      have sl2: "sloc P w' = sloc P r" using sl w(2) by simp
      have nw: "\<not> is_rd P w'" using ww rd_not_wr by blast
      have "(if is_rd P w' then f w' else w') = f r \<or> ((if is_rd P w' then f w' else w'), f r) \<in> cr"
        using hr h2 r(1) ww sl2 unfolding hb_co_rd_ok_def by blast
      then have "w' = f r \<or> (w', f r) \<in> cr" using nw by simp
      then show False
      proof
        assume "w' = f r"
        then show False using irr y(1) g1(1,2) eq by simp
      next
        assume wf: "(w', f r) \<in> cr"
        then have "\<forall>z. f r \<noteq> Init z" using cand_facts(3) by blast
        then have "(f r, w') \<in> hbr L P f" using g1(4) eq by auto
        moreover have "\<not> is_rd P (f r)" using w(1) rd_not_wr by blast
        ultimately have "((if is_rd P (f r) then f (f r) else f r), w') \<in> cr"
          using hc ww w(1) sl unfolding hb_co_ok_def by blast
        then have "(f r, w') \<in> cr" using \<open>\<not> is_rd P (f r)\<close> by simp
        then show False using wf cyc by blast
      qed
    qed
    have "p \<in> (opencl_rsp_n157 ?X \<inter> ?G) \<inter> (loc ?X - ((?G \<inter> loc ?X) O opencl_rsp_n161 ?X) O ?G)"
      using ee(1) n157 hb1 lc nv by blast
    then show False using DiffD2[OF p[unfolded opencl_rsp_global_nonatomic_rf_def]] by blast
  qed
  show ?thesis unfolding rsp_hb_axioms_def using c1 c2 c3 c4 by blast
qed

end

section \<open>Every outcome is one OpenCL+RSP allows\<close>

text \<open>On a race-free program whose remote operations promote nothing,
  without non-atomic RMWs, on one device, compiled by rows that take the rmw locks as lk_code says
  (rsp-new's): every final state shows the outcome of a candidate that
  OpenCL+RSP finds consistent.\<close>
theorem machine_candidate_consistent:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
      "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    and wp: "well_placed L P" and ds: "dev_sys L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "load_promotion L P"
    and lc: "\<forall>u \<in> src_threads P. lk_code (instrs (compile S P) u)"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> opencl_rsp_consistent (src_exec L P (grf g) (run_co P g))"
proof -
  have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fs rem] .
  have ac: "atomic_conflicts P" using race_free_atomic[OF nr rfree fs rem] .
  obtain g where g: "ginv L S P s g" "oinv L S P s g" "wr_ok L S P s g" "kw_ok L S P s g" "kr_ok L S P s g"
      "at1_ok L S B P s g" "at2_ok L S B P s g"
    using rsp_reachable[OF reach rows wp sc ds lc] by blast
  have ca: "cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)"
    using final_candidate[OF rows(1-3) wp g(1) fin] by blast
  have pl: "po_loc_ok P (grf g) (run_co P g)" using final_po_loc[OF g(1-3) fin wp rows(1-3)] .
  have at: "\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P (grf g) (run_co P g) t k"
    using final_rmw_atomic[OF g(1) fin wp rows(1-3) g(6,7)] .
  have hc: "hb_co_ok L P (grf g) (run_co P g)" using final_hb_co[OF g(1) fin wp rows(1-3) g(4)] .
  have hr: "hb_co_rd_ok L P (grf g) (run_co P g)" using final_hb_co_rd[OF g(1) fin wp rows(1-3) g(5)] .
  have ir: "irrefl (hbr L P (grf g))" using final_hbr_irrefl[OF g(1,4) fin wp rows(1-3)] .
  interpret rsp_cand L P "grf g" "run_co P g" "gv g"
    using ca pl at ac sc ds fs by unfold_locales blast+
  have "rsp_hb_axioms (src_exec L P (grf g) (run_co P g))" using cand_hb_axioms[OF hc hr ir] .
  moreover have "rsp_other_axioms (src_exec L P (grf g) (run_co P g))"
    using cand_other_axioms[OF ca[THEN conjunct1] pl at] .
  ultimately show ?thesis using ca opencl_rsp_split by blast
qed

text \<open>So every outcome of such a program is one OpenCL+RSP allows.\<close>
corollary machine_outcomes_allowed_rows:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)" "lk_rows S (A \<union> B)" "well_placed L P" "dev_sys L P" "\<not> na_rmw P"
    "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" "load_promotion L P"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> src_allowed opencl_rsp_consistent L P"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
      "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  show "ob \<in> src_allowed opencl_rsp_consistent L P"
    using machine_candidate_consistent[OF assms(1-11,13-17) lk_rows_code[OF assms(12,3)] s(1,2)] s(3)
    unfolding src_allowed_def by blast
qed

text \<open>With deadlock freedom: such a scheme is sound against OpenCL+RSP
  (Hrf_Mapping's sound_on) on every program whose remote operations promote
  nothing, on one device.\<close>
theorem machine_sound_on_rows:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)" "lk_rows S (A \<union> B)" "disciplined_scheme S" "well_placed L P" "dev_sys L P" "load_promotion L P"
  shows "opencl_rsp_source.sound_on L wb S P"
proof -
  have "compilable S P" using assms(1-3) by (fastforce simp: compilable_def l1_rows_def l2_rows_def)
  then show ?thesis
    unfolding opencl_rsp_source.sound_on_def
    using machine_outcomes_allowed_rows[OF assms(1-12,14,15) _ _ assms(16)] scheme_deadlock_free[OF assms(13) _ assms(14)]
    by blast
qed

section \<open>A remote operation's plain partner, read as a work-group-scope atomic\<close>

text \<open>A plain access (Hrf_Mapping's plain_ops: non-atomic, not remote) of a
  location that some atomic accesses, read as a work-group-scope atomic.
  OpenCL+RSP lets such an access meet a remote operation whose scope holds
  it unordered ([RSP15] sec. 5.1: a remote operation's scope holds every
  access of its device, the model's n86;n82), and rsp-new's rows for the
  two are the same (LD, ST).\<close>
definition plain_wg :: "src_op \<Rightarrow> src_op" where
  "plain_wg a = (if a = Load NonAtomic False then Load WorkGroup False
     else if a = Store NonAtomic False then Store WorkGroup False else a)"

definition plain_wg_ins :: "addr set \<Rightarrow> src_instr \<Rightarrow> src_instr" where
  "plain_wg_ins N c = (case c of Op a r x \<Rightarrow> if x \<in> N then c else Op (plain_wg a) r x | SetReg r v \<Rightarrow> c)"

definition plain_as_wg :: "src_program \<Rightarrow> src_program" where
  "plain_as_wg P = P\<lparr>src_code := (\<lambda>t. map (plain_wg_ins (nal_locs P)) (src_code P t))\<rparr>"

lemma nth_map_any: "map f xs ! i = (if i < length xs then f (xs ! i) else xs ! i)"
proof (induction xs arbitrary: i)
  case Nil
  then show ?case by simp
next
  case (Cons a xs)
  then show ?case by (cases i) auto
qed

lemma pw_simps [simp]:
  "src_threads (plain_as_wg P) = src_threads P" "src_init (plain_as_wg P) = src_init P"
  "length (src_code (plain_as_wg P) t) = length (src_code P t)"
  by (simp_all add: plain_as_wg_def)

lemma pw_ins: "ins (plain_as_wg P) t i
    = (if i < length (src_code P t) then plain_wg_ins (nal_locs P) (ins P t i) else ins P t i)"
  by (simp add: plain_as_wg_def ins_def nth_map_any)

text \<open>What the instruction does is kept: its parts, location, registers and
  remote flag; only a plain access's scope changes.\<close>
lemma pwi_cases: "plain_wg_ins N c = c
    \<or> (\<exists>r x. c = Op (Load NonAtomic False) r x \<and> plain_wg_ins N c = Op (Load WorkGroup False) r x)
    \<or> (\<exists>r x. c = Op (Store NonAtomic False) r x \<and> plain_wg_ins N c = Op (Store WorkGroup False) r x)"
  by (auto simp: plain_wg_ins_def plain_wg_def split: src_instr.splits)

lemma pwi_kept:
  "rd (plain_wg_ins N c) p = rd c p" "wr (plain_wg_ins N c) p = wr c p"
  "addr_of (plain_wg_ins N c) = addr_of c" "op_remote (plain_wg_ins N c) = op_remote c"
  "mo_tag (plain_wg_ins N c) = mo_tag c" "step_regs (plain_wg_ins N c) a R = step_regs c a R"
  using pwi_cases[of N c] by auto

lemma pwi_same:
  assumes "op_scope c \<noteq> NonAtomic \<or> op_remote c" shows "plain_wg_ins N c = c"
  using assms by (auto simp: plain_wg_ins_def plain_wg_def split: src_instr.splits src_op.splits)

lemma pwi_scope: "op_scope (plain_wg_ins N c) = NonAtomic \<Longrightarrow> op_scope c = NonAtomic"
  by (auto simp: plain_wg_ins_def plain_wg_def split: src_instr.splits src_op.splits if_splits)

lemma pw_kept:
  "rd (ins (plain_as_wg P) t i) p = rd (ins P t i) p" "wr (ins (plain_as_wg P) t i) p = wr (ins P t i) p"
  "addr_of (ins (plain_as_wg P) t i) = addr_of (ins P t i)"
  "op_remote (ins (plain_as_wg P) t i) = op_remote (ins P t i)"
  "mo_tag (ins (plain_as_wg P) t i) = mo_tag (ins P t i)"
  by (simp_all add: pw_ins pwi_kept)

lemma pw_same:
  "op_scope (ins P t i) \<noteq> NonAtomic \<or> op_remote (ins P t i) \<Longrightarrow> ins (plain_as_wg P) t i = ins P t i"
  by (simp add: pw_ins pwi_same)

lemma pw_ev [simp]:
  "acc (plain_as_wg P) = acc P" "src_locs (plain_as_wg P) = src_locs P"
  "is_ev (plain_as_wg P) = is_ev P" "is_rd (plain_as_wg P) = is_rd P" "is_wr (plain_as_wg P) = is_wr P"
  "sloc (plain_as_wg P) = sloc P" "src_po (plain_as_wg P) = src_po P" "src_rmw (plain_as_wg P) = src_rmw P"
proof -
  show a: "acc (plain_as_wg P) = acc P" by (intro ext) (simp add: acc_def pw_kept)
  show l: "src_locs (plain_as_wg P) = src_locs P" by (simp add: src_locs_def pw_kept)
  show "is_ev (plain_as_wg P) = is_ev P" by (intro ext, case_tac x) (simp_all add: a l)
  show "is_rd (plain_as_wg P) = is_rd P" by (intro ext, case_tac x) (simp_all add: a pw_kept)
  show "is_wr (plain_as_wg P) = is_wr P" by (intro ext, case_tac x) (simp_all add: a l pw_kept)
  show "sloc (plain_as_wg P) = sloc P" by (intro ext, case_tac x) (simp_all add: pw_kept)
  show "src_po (plain_as_wg P) = src_po P" by (simp add: src_po_def a)
  show "src_rmw (plain_as_wg P) = src_rmw P" by (simp add: src_rmw_def a)
qed

lemma pwi_in: "addr_of c = Some x \<Longrightarrow> x \<in> N \<Longrightarrow> plain_wg_ins N c = c"
  by (cases c) (auto simp: plain_wg_ins_def)

lemma pw_nal [simp]: "nal_locs (plain_as_wg P) = nal_locs P"
proof (intro set_eqI iffI)
  fix x assume x: "x \<in> nal_locs (plain_as_wg P)"
  show "x \<in> nal_locs P" unfolding nal_locs_def
  proof (intro CollectI ballI allI impI)
    fix t i assume "t \<in> src_threads P" "i < length (src_code P t)" "addr_of (ins P t i) = Some x"
    then have "op_scope (ins (plain_as_wg P) t i) = NonAtomic"
      using x unfolding nal_locs_def by (simp add: pw_kept)
    then show "op_scope (ins P t i) = NonAtomic" by (auto simp: pw_ins dest: pwi_scope split: if_splits)
  qed
next
  fix x assume x: "x \<in> nal_locs P"
  show "x \<in> nal_locs (plain_as_wg P)" unfolding nal_locs_def
  proof (intro CollectI ballI allI impI)
    fix t i assume h: "t \<in> src_threads (plain_as_wg P)" "i < length (src_code (plain_as_wg P) t)"
      "addr_of (ins (plain_as_wg P) t i) = Some x"
    then have a: "addr_of (ins P t i) = Some x" by (simp add: pw_kept)
    then have "ins (plain_as_wg P) t i = ins P t i" using x by (simp add: pw_ins pwi_in)
    moreover have "op_scope (ins P t i) = NonAtomic" using x h a unfolding nal_locs_def by simp
    ultimately show "op_scope (ins (plain_as_wg P) t i) = NonAtomic" by simp
  qed
qed

section \<open>OpenCL+RSP on two executions that differ only in their tags\<close>

text \<open>Two executions alike but for their tags (and attributes), the
  second's tags holding the first's (but NA, which the model reads not), with
  the same writes, reads, initial writes, non-atomic locations and no work-item
  scope.\<close>
locale tags_grow =
  fixes X Y :: execution
  assumes upd: "Y = X\<lparr>tags := tags Y, attr := attr Y\<rparr>"
    and grow: "\<And>s. s \<noteq> ''NA'' \<Longrightarrow> tag X s \<subseteq> tag Y s"
    and kept: "tag Y ''W'' = tag X ''W''" "tag Y ''R'' = tag X ''R''" "tag Y ''IW'' = tag X ''IW''"
      "tag Y ''wi'' = tag X ''wi''" "tag Y ''nonatomicloc'' = tag X ''nonatomicloc''"
    and bar: "attr Y ''bar'' = attr X ''bar''"
begin

lemma same [simp]: "events Y = events X" "thread_of Y = thread_of X" "loc_of Y = loc_of X"
  "thread_attr Y = thread_attr X" "po_imm Y = po_imm X" "co_imm Y = co_imm X" "rf Y = rf X" "rmw Y = rmw X"
  by (subst upd, simp)+

lemma same_rel [simp]: "po Y = po X" "co Y = co X" "fr Y = fr X" "loc Y = loc X"
  "same_thread_attr Y a = same_thread_attr X a" "universal Y = universal X" "id_r Y = id_r X"
  "opt Y r = opt X r" "same_attr Y ''bar'' = same_attr X ''bar''"
  unfolding po_def co_def fr_def loc_def pairs_where_def same_thread_attr_def universal_def id_r_def
      opt_def same_attr_def bar same by (rule refl)+

lemma kept_tags [simp]: "tag Y ''W'' = tag X ''W''" "tag Y ''R'' = tag X ''R''" "tag Y ''IW'' = tag X ''IW''"
  "tag Y ''wi'' = tag X ''wi''" "tag Y ''nonatomicloc'' = tag X ''nonatomicloc''"
  by (fact kept)+

lemma g: "tag X ''A'' \<subseteq> tag Y ''A''" "tag X ''F'' \<subseteq> tag Y ''F''" "tag X ''rel'' \<subseteq> tag Y ''rel''"
  "tag X ''sc'' \<subseteq> tag Y ''sc''" "tag X ''acq_rel'' \<subseteq> tag Y ''acq_rel''" "tag X ''acq'' \<subseteq> tag Y ''acq''"
  "tag X ''sg'' \<subseteq> tag Y ''sg''" "tag X ''wg'' \<subseteq> tag Y ''wg''" "tag X ''dev'' \<subseteq> tag Y ''dev''"
  "tag X ''all'' \<subseteq> tag Y ''all''" "tag X ''remote'' \<subseteq> tag Y ''remote''" "tag X ''global'' \<subseteq> tag Y ''global''"
  "tag X ''local'' \<subseteq> tag Y ''local''" "tag X ''entry'' \<subseteq> tag Y ''entry''" "tag X ''exit'' \<subseteq> tag Y ''exit''"
  "tag X ''W'' \<subseteq> tag Y ''W''" "tag X ''R'' \<subseteq> tag Y ''R''" "tag X ''wi'' \<subseteq> tag Y ''wi''"
  "tag X ''IW'' \<subseteq> tag Y ''IW''" "tag X ''nonatomicloc'' \<subseteq> tag Y ''nonatomicloc''"
  by (rule grow; simp)+

lemma kg: "tag Y ''W'' \<subseteq> tag X ''W''" "tag Y ''R'' \<subseteq> tag X ''R''" "tag Y ''IW'' \<subseteq> tag X ''IW''"
  "tag Y ''wi'' \<subseteq> tag X ''wi''" "tag Y ''nonatomicloc'' \<subseteq> tag X ''nonatomicloc''"
  by simp_all

lemma Id_on_mono: "A \<subseteq> B \<Longrightarrow> Id_on A \<subseteq> Id_on B"
  by auto

lemma times_mono: "A \<subseteq> C \<Longrightarrow> B \<subseteq> D \<Longrightarrow> A \<times> B \<subseteq> C \<times> D"
  by auto

lemma opt_mono: "r \<subseteq> r' \<Longrightarrow> opt X r \<subseteq> opt X r'"
  by (auto simp: opt_def)

lemma conv_mono: "r \<subseteq> r' \<Longrightarrow> conv r \<subseteq> conv r'"
  by (auto simp: conv_def)

lemma tr_mono: "r \<subseteq> s \<Longrightarrow> r\<^sup>+ \<subseteq> s\<^sup>+"
  using trancl_mono by blast

lemma ev_mono: "events X - A \<subseteq> events X - B" if "B \<subseteq> A"
  using that by auto

lemmas mono_intros = Int_mono Un_mono relcomp_mono Id_on_mono times_mono Diff_mono tr_mono opt_mono
  conv_mono ev_mono

lemma n_eq: "opencl_rsp_n28 Y = opencl_rsp_n28 X" "opencl_rsp_n35 Y = opencl_rsp_n35 X"
  "opencl_rsp_n40 Y = opencl_rsp_n40 X" "opencl_rsp_n145 Y = opencl_rsp_n145 X" "opencl_rsp_n157 Y = opencl_rsp_n157 X"
  "opencl_rsp_n161 Y = opencl_rsp_n161 X" "opencl_rsp_n132 Y = opencl_rsp_n132 X" "opencl_rsp_n26 Y = opencl_rsp_n26 X"
  unfolding opencl_rsp_n28_def opencl_rsp_n35_def opencl_rsp_n40_def opencl_rsp_n145_def opencl_rsp_n157_def
    opencl_rsp_n161_def opencl_rsp_n132_def opencl_rsp_n26_def opencl_rsp_n141_def same_rel same kept_tags
  by (rule refl)+

lemma n9: "opencl_rsp_n9 X \<subseteq> opencl_rsp_n9 Y"
  unfolding opencl_rsp_n9_def same_rel same by (intro mono_intros g kg  order_refl)

lemma n12: "opencl_rsp_n12 X \<subseteq> opencl_rsp_n12 Y"
  unfolding opencl_rsp_n12_def same_rel same by (intro mono_intros g kg n9 order_refl)

lemma n21: "opencl_rsp_n21 X \<subseteq> opencl_rsp_n21 Y"
  unfolding opencl_rsp_n21_def same_rel same by (intro mono_intros g kg n9 n12 order_refl)

lemma n26: "opencl_rsp_n26 X \<subseteq> opencl_rsp_n26 Y"
  unfolding opencl_rsp_n26_def same_rel same by (intro mono_intros g kg n9 n12 n21 order_refl)

lemma n49: "opencl_rsp_n49 X \<subseteq> opencl_rsp_n49 Y"
  unfolding opencl_rsp_n49_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 order_refl)

lemma n58: "opencl_rsp_n58 X \<subseteq> opencl_rsp_n58 Y"
  unfolding opencl_rsp_n58_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 order_refl)

lemma n82: "opencl_rsp_n82 X \<subseteq> opencl_rsp_n82 Y"
  unfolding opencl_rsp_n82_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 order_refl)

lemma n86: "opencl_rsp_n86 X \<subseteq> opencl_rsp_n86 Y"
  unfolding opencl_rsp_n86_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 order_refl)

lemma n99: "opencl_rsp_n99 X \<subseteq> opencl_rsp_n99 Y"
  unfolding opencl_rsp_n99_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 order_refl)

lemma n100: "opencl_rsp_n100 X \<subseteq> opencl_rsp_n100 Y"
  unfolding opencl_rsp_n100_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 order_refl)

lemma n103: "opencl_rsp_n103 X \<subseteq> opencl_rsp_n103 Y"
  unfolding opencl_rsp_n103_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 order_refl)

lemma n106: "opencl_rsp_n106 X \<subseteq> opencl_rsp_n106 Y"
  unfolding opencl_rsp_n106_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 order_refl)

lemma n125: "opencl_rsp_n125 X \<subseteq> opencl_rsp_n125 Y"
  unfolding opencl_rsp_n125_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 order_refl)

lemma n132: "opencl_rsp_n132 X \<subseteq> opencl_rsp_n132 Y"
  unfolding opencl_rsp_n132_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 order_refl)

lemma n157: "opencl_rsp_n157 X \<subseteq> opencl_rsp_n157 Y"
  unfolding opencl_rsp_n157_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 order_refl)

lemma n161: "opencl_rsp_n161 X \<subseteq> opencl_rsp_n161 Y"
  unfolding opencl_rsp_n161_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 order_refl)

lemma n15: "opencl_rsp_n15 X \<subseteq> opencl_rsp_n15 Y"
  unfolding opencl_rsp_n15_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 order_refl)

lemma n28: "opencl_rsp_n28 X \<subseteq> opencl_rsp_n28 Y"
  unfolding opencl_rsp_n28_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 order_refl)

lemma n35: "opencl_rsp_n35 X \<subseteq> opencl_rsp_n35 Y"
  unfolding opencl_rsp_n35_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 order_refl)

lemma n52: "opencl_rsp_n52 X \<subseteq> opencl_rsp_n52 Y"
  unfolding opencl_rsp_n52_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 order_refl)

lemma n83: "opencl_rsp_n83 X \<subseteq> opencl_rsp_n83 Y"
  unfolding opencl_rsp_n83_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 order_refl)

lemma n101: "opencl_rsp_n101 X \<subseteq> opencl_rsp_n101 Y"
  unfolding opencl_rsp_n101_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 order_refl)

lemma n108: "opencl_rsp_n108 X \<subseteq> opencl_rsp_n108 Y"
  unfolding opencl_rsp_n108_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 order_refl)

lemma n126: "opencl_rsp_n126 X \<subseteq> opencl_rsp_n126 Y"
  unfolding opencl_rsp_n126_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 order_refl)

lemma n134: "opencl_rsp_n134 X \<subseteq> opencl_rsp_n134 Y"
  unfolding opencl_rsp_n134_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 order_refl)

lemma n141: "opencl_rsp_n141 X \<subseteq> opencl_rsp_n141 Y"
  unfolding opencl_rsp_n141_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 order_refl)

lemma n40: "opencl_rsp_n40 X \<subseteq> opencl_rsp_n40 Y"
  using n_eq by simp

lemma n90: "opencl_rsp_n90 X \<subseteq> opencl_rsp_n90 Y"
  unfolding opencl_rsp_n90_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 order_refl)

lemma n145: "opencl_rsp_n145 X \<subseteq> opencl_rsp_n145 Y"
  unfolding opencl_rsp_n145_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 order_refl)

lemma n91: "opencl_rsp_n91 X \<subseteq> opencl_rsp_n91 Y"
  unfolding opencl_rsp_n91_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 order_refl)

lemma n92: "opencl_rsp_n92 X \<subseteq> opencl_rsp_n92 Y"
  unfolding opencl_rsp_n92_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 n91 order_refl)

lemma n122: "opencl_rsp_n122 X \<subseteq> opencl_rsp_n122 Y"
  unfolding opencl_rsp_n122_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 n91 n92 order_refl)

lemma n124: "opencl_rsp_n124 X \<subseteq> opencl_rsp_n124 Y"
  unfolding opencl_rsp_n124_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 n91 n92 n122 order_refl)

lemma n129: "opencl_rsp_n129 X \<subseteq> opencl_rsp_n129 Y"
  unfolding opencl_rsp_n129_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 n91 n92 n122 n124 order_refl)

lemma n137: "opencl_rsp_n137 X \<subseteq> opencl_rsp_n137 Y"
  unfolding opencl_rsp_n137_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 n91 n92 n122 n124 n129 order_refl)

lemma n140: "opencl_rsp_n140 X \<subseteq> opencl_rsp_n140 Y"
  unfolding opencl_rsp_n140_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 n91 n92 n122 n124 n129 n137 order_refl)

lemma n152: "opencl_rsp_n152 X \<subseteq> opencl_rsp_n152 Y"
  unfolding opencl_rsp_n152_def same_rel same by (intro mono_intros g kg n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n15 n28 n35 n52 n83 n101 n108 n126 n134 n141 n40 n90 n145 n91 n92 n122 n124 n129 n137 n140 order_refl)

lemmas m1 = n9 n12 n21 n26 n49 n58 n82 n86 n99 n100 n103 n106 n125 n132 n157 n161 n_eq
lemmas m2 = n15 n28 n35 n52 n83 n101 n108 n126 n134 n141
lemmas m3 = n40 n90 n145
lemmas m7 = n137 n140
lemmas m8 = n152

text \<open>So every check of the model that happens-before or scope inclusion
  reads holds of the first where it holds of the second, but the one that
  a read of a non-atomic location reads a visible write ...\<close>
text \<open>A read of a non-atomic location reads a visible write: the check
  reads happens-before both ways (the write before the read, no other
  write between), so it holds of the first where the second's holds and
  the first's happens-before already orders each such read after its
  write.\<close>
lemma nonatomic_down:
  assumes y: "(rf Y O Id_on (tag Y ''nonatomicloc'' \<inter> T')) - ((opencl_rsp_n157 Y \<inter> H')
      \<inter> (loc Y - ((H' \<inter> loc Y) O opencl_rsp_n161 Y) O H')) = {}"
    and t: "T \<subseteq> T'" and h: "H \<subseteq> H'" and hb: "rf X O Id_on (tag X ''nonatomicloc'' \<inter> T) \<subseteq> H"
  shows "(rf X O Id_on (tag X ''nonatomicloc'' \<inter> T)) - ((opencl_rsp_n157 X \<inter> H)
      \<inter> (loc X - ((H \<inter> loc X) O opencl_rsp_n161 X) O H)) = {}"
proof -
  have y': "(rf X O Id_on (tag X ''nonatomicloc'' \<inter> T')) - ((opencl_rsp_n157 X \<inter> H')
      \<inter> (loc X - ((H' \<inter> loc X) O opencl_rsp_n161 X) O H')) = {}"
    using y by (simp only: same same_rel kept_tags n_eq)
  show ?thesis
  proof (rule equals0I)
    fix z assume z: "z \<in> (rf X O Id_on (tag X ''nonatomicloc'' \<inter> T)) - ((opencl_rsp_n157 X \<inter> H)
      \<inter> (loc X - ((H \<inter> loc X) O opencl_rsp_n161 X) O H))"
    then have z1: "z \<in> rf X O Id_on (tag X ''nonatomicloc'' \<inter> T)" by blast
    then have "z \<in> rf X O Id_on (tag X ''nonatomicloc'' \<inter> T')" using t by blast
    then have "z \<in> (opencl_rsp_n157 X \<inter> H') \<inter> (loc X - ((H' \<inter> loc X) O opencl_rsp_n161 X) O H')"
      using y' by blast
    then have "z \<in> opencl_rsp_n157 X" "z \<in> loc X" "z \<notin> ((H' \<inter> loc X) O opencl_rsp_n161 X) O H'" by blast+
    moreover have "z \<in> H" using hb z1 by blast
    moreover have "((H \<inter> loc X) O opencl_rsp_n161 X) O H \<subseteq> ((H' \<inter> loc X) O opencl_rsp_n161 X) O H'"
      using h by (intro mono_intros order_refl)
    ultimately show False using z by blast
  qed
qed

lemma consistent_down:
  assumes c: "opencl_rsp_consistent Y"
    and gn: "rf X O Id_on (tag X ''nonatomicloc'' \<inter> tag X ''global'') \<subseteq> opencl_rsp_n137 X"
    and ln: "rf X O Id_on (tag X ''nonatomicloc'' \<inter> tag X ''local'') \<subseteq> opencl_rsp_n140 X"
  shows "opencl_rsp_consistent X"
proof -
  have "opencl_rsp_global_nonatomic_rf X = {}"
    using nonatomic_down[OF _ g(12) n137 gn] c
    unfolding opencl_rsp_consistent_def opencl_rsp_global_nonatomic_rf_def by blast
  moreover have "opencl_rsp_local_nonatomic_rf X = {}"
    using nonatomic_down[OF _ g(13) n140 ln] c
    unfolding opencl_rsp_consistent_def opencl_rsp_local_nonatomic_rf_def by blast
  moreover have "opencl_rsp_scoped_sc X \<subseteq> opencl_rsp_scoped_sc Y"
    unfolding opencl_rsp_scoped_sc_def same_rel n_eq by (intro mono_intros n103 n15 n52 n152 n90 n141 order_refl)
  moreover have "irrefl (opencl_rsp_n137 X)" "irrefl (opencl_rsp_n140 X)"
    "irrefl (opencl_rsp_n145 X O opencl_rsp_n137 X)" "irrefl (opencl_rsp_n145 X O opencl_rsp_n140 X)"
    "irrefl (opencl_rsp_n145 X O (opencl_rsp_n100 X \<inter> po X))" "irrefl (opencl_rsp_n145 X O (opencl_rsp_n125 X \<inter> po X))"
    "irrefl (rf X O opencl_rsp_n152 X)" "opencl_rsp_rmw_atomicity X = {}"
  proof -
    have i: "irrefl r" if "irrefl r'" "r \<subseteq> r'" for r r' :: "event rel"
      using that by (auto simp: irrefl_def)
    have cy: "irrefl (opencl_rsp_n137 Y)" "irrefl (opencl_rsp_n140 Y)"
      "irrefl (opencl_rsp_n145 Y O opencl_rsp_n137 Y)" "irrefl (opencl_rsp_n145 Y O opencl_rsp_n140 Y)"
      "irrefl (opencl_rsp_n145 Y O (opencl_rsp_n100 Y \<inter> po Y))" "irrefl (opencl_rsp_n145 Y O (opencl_rsp_n125 Y \<inter> po Y))"
      "irrefl (rf Y O opencl_rsp_n152 Y)" "opencl_rsp_rmw_atomicity Y = {}"
      using c unfolding opencl_rsp_consistent_def opencl_rsp_global_hb_acyclic_def
        opencl_rsp_local_hb_acyclic_def opencl_rsp_global_coherence_def opencl_rsp_local_coherence_def
        opencl_rsp_global_coherence_po_def opencl_rsp_local_coherence_po_def opencl_rsp_rf_hb_def
      by blast+
    show "irrefl (opencl_rsp_n137 X)" by (rule i[OF cy(1) n137])
    show "irrefl (opencl_rsp_n140 X)" by (rule i[OF cy(2) n140])
    show "irrefl (opencl_rsp_n145 X O opencl_rsp_n137 X)"
      by (rule i[OF cy(3)]) (simp only: n_eq; intro mono_intros n137 order_refl)
    show "irrefl (opencl_rsp_n145 X O opencl_rsp_n140 X)"
      by (rule i[OF cy(4)]) (simp only: n_eq; intro mono_intros n140 order_refl)
    show "irrefl (opencl_rsp_n145 X O (opencl_rsp_n100 X \<inter> po X))"
      by (rule i[OF cy(5)]) (simp only: n_eq same_rel; intro mono_intros n100 order_refl)
    show "irrefl (opencl_rsp_n145 X O (opencl_rsp_n125 X \<inter> po X))"
      by (rule i[OF cy(6)]) (simp only: n_eq same_rel; intro mono_intros n125 order_refl)
    show "irrefl (rf X O opencl_rsp_n152 X)"
      by (rule i[OF cy(7)]) (simp only: same; intro mono_intros n152 order_refl)
    show "opencl_rsp_rmw_atomicity X = {}" using cy(8) unfolding opencl_rsp_rmw_atomicity_def by simp
  qed
  ultimately show ?thesis using c unfolding opencl_rsp_consistent_def opencl_rsp_global_hb_acyclic_def
      opencl_rsp_local_hb_acyclic_def opencl_rsp_global_coherence_def opencl_rsp_local_coherence_def
      opencl_rsp_global_coherence_po_def opencl_rsp_local_coherence_po_def opencl_rsp_rf_hb_def
    by (blast intro: acyclic_subset)
qed

text \<open>And a data race of the second is one of the first.\<close>
lemma race_down: "opencl_rsp_data_race Y \<subseteq> opencl_rsp_data_race X"
  unfolding opencl_rsp_data_race_def same_rel kept_tags n_eq by (intro mono_intros n152 n90 order_refl)

end

section \<open>The source model keeps its verdicts when a plain partner is read as an atomic\<close>

lemma pw_tags_first: "src_tags (plain_as_wg P) ''R'' = src_tags P ''R''"
  "src_tags (plain_as_wg P) ''W'' = src_tags P ''W''" "src_tags (plain_as_wg P) ''M'' = src_tags P ''M''"
  "src_tags (plain_as_wg P) ''IW'' = src_tags P ''IW''" "src_tags (plain_as_wg P) ''global'' = src_tags P ''global''"
  "src_tags (plain_as_wg P) ''nonatomicloc'' = src_tags P ''nonatomicloc''"
  by (simp_all add: tags_R tags_W tags_M tags_IW tags_global tags_nal nal_ev_def)

text \<open>The tags past the first six read the event's instruction alone.\<close>
lemma src_tags_else:
  assumes "s \<notin> {''R'', ''W'', ''M'', ''IW'', ''global'', ''nonatomicloc''}"
  shows "src_tags P s = {e. is_ev P e \<and> (case e of Init x \<Rightarrow> False | Acc t i p \<Rightarrow>
      (s = ''A'' \<and> op_scope (ins P t i) \<noteq> NonAtomic)
    \<or> (s = ''NA'' \<and> op_scope (ins P t i) = NonAtomic)
    \<or> (s = scope_tag (op_scope (ins P t i)) \<and> op_scope (ins P t i) \<noteq> NonAtomic)
    \<or> (s = mo_tag (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic)
    \<or> (s = ''remote'' \<and> op_remote (ins P t i)))}"
  using assms unfolding src_tags_def by simp

lemma pw_tags_grow:
  assumes s: "s \<noteq> ''NA''" shows "src_tags P s \<subseteq> src_tags (plain_as_wg P) s"
proof (cases "s \<in> {''R'', ''W'', ''M'', ''IW'', ''global'', ''nonatomicloc''}")
  case True
  then show ?thesis using pw_tags_first by auto
next
  case False
  show ?thesis
  proof
    fix e assume e: "e \<in> src_tags P s"
    obtain t i p where a: "e = Acc t i p" using e False by (cases e) (simp_all add: src_tags_else)
    show "e \<in> src_tags (plain_as_wg P) s"
    proof (cases "ins (plain_as_wg P) t i = ins P t i")
      case True
      then show ?thesis using e a False by (simp add: src_tags_else)
    next
      case ch: False
      then have "op_scope (ins P t i) = NonAtomic" "\<not> op_remote (ins P t i)" using pw_same by blast+
      then have "s = ''NA''" using e a False by (simp add: src_tags_else)
      then show ?thesis using s by blast
    qed
  qed
qed

lemma pw_exec: "src_exec L (plain_as_wg P) f cs = (src_exec L P f cs)\<lparr>tags := tags (src_exec L (plain_as_wg P) f cs),
    attr := attr (src_exec L (plain_as_wg P) f cs)\<rparr>"
  by (simp add: src_exec_def)

lemma pw_grows: "tags_grow (src_exec L P f cs) (src_exec L (plain_as_wg P) f cs)"
proof
  show "src_exec L (plain_as_wg P) f cs = (src_exec L P f cs)\<lparr>tags := tags (src_exec L (plain_as_wg P) f cs),
    attr := attr (src_exec L (plain_as_wg P) f cs)\<rparr>" by (rule pw_exec)
  show "tag (src_exec L P f cs) s \<subseteq> tag (src_exec L (plain_as_wg P) f cs) s" if "s \<noteq> ''NA''" for s
    using pw_tags_grow[OF that] by (auto simp: tag_XS)
  show "tag (src_exec L (plain_as_wg P) f cs) ''W'' = tag (src_exec L P f cs) ''W''"
    "tag (src_exec L (plain_as_wg P) f cs) ''R'' = tag (src_exec L P f cs) ''R''"
    "tag (src_exec L (plain_as_wg P) f cs) ''IW'' = tag (src_exec L P f cs) ''IW''"
    "tag (src_exec L (plain_as_wg P) f cs) ''nonatomicloc'' = tag (src_exec L P f cs) ''nonatomicloc''"
    by (simp_all only: tag_XS pw_tags_first)
  show "tag (src_exec L (plain_as_wg P) f cs) ''wi'' = tag (src_exec L P f cs) ''wi''"
    by (simp only: tag_XS_none)
  show "attr (src_exec L (plain_as_wg P) f cs) ''bar'' = attr (src_exec L P f cs) ''bar''"
    by (simp add: src_exec_def)
qed

text \<open>In a race-free program a read of a non-atomic location reads its own
  thread's write before it, or the initial one (Hrf_Source_Opencl's
  race_free_nonatomic_local): so in the model's happens-before, of a
  candidate whose reads read no write after them in program order.\<close>
lemma nal_rf_hb:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and c: "cand_ok P f cs v"
    and cy: "irrefl (rf (src_exec L P f cs) O opencl_rsp_n152 (src_exec L P f cs))"
  shows "rf (src_exec L P f cs) O Id_on (tag (src_exec L P f cs) ''nonatomicloc'' \<inter> tag (src_exec L P f cs) ''global'')
      \<subseteq> opencl_rsp_n137 (src_exec L P f cs)"
proof
  let ?X = "src_exec L P f cs"
  fix z assume "z \<in> rf ?X O Id_on (tag ?X ''nonatomicloc'' \<inter> tag ?X ''global'')"
  then obtain a b where ab: "z = (a, b)" "(a, b) \<in> rf ?X" "b \<in> tag ?X ''nonatomicloc''" by blast
  then obtain r where r0: "is_rd P r" "a = enc (f r)" "b = enc r" using rf_XS by blast
  then have r: "is_rd P r" "z = (enc (f r), enc r)" "enc r \<in> tag ?X ''nonatomicloc''" using ab by simp_all
  have nl: "nal_ev P r" using r(3) by (simp add: tag_XS tags_nal)
  have w: "is_wr P (f r)" "sloc P (f r) = sloc P r" using c r(1) by (simp_all add: cand_ok_def)
  have evs: "is_ev P (f r)" "is_ev P r" using w(1) r(1) ev_of by blast+
  have po_g: "(enc x, enc y) \<in> opencl_rsp_n137 ?X" if "(x, y) \<in> src_po P" for x y
  proof -
    have "is_ev P x" "is_ev P y" using that by (auto simp: src_po_def)
    then have "(enc x, enc y) \<in> opencl_rsp_n100 ?X \<inter> opencl_rsp_n134 ?X"
      using that src_po_lift[of L P f cs] lift_pair[of x y "src_po P"]
      by (auto simp: opencl_rsp_n100_def opencl_rsp_n134_def tag_XS tags_global)
    then show ?thesis unfolding XS_ghb_gen by blast
  qed
  obtain u j where ru: "r = Acc u j False" using r(1) by (cases r) (auto dest: rd_part)
  show "z \<in> opencl_rsp_n137 ?X"
  proof (cases "\<exists>x. f r = Init x")
    case True
    then obtain x where x: "f r = Init x" by blast
    have "r \<notin> Init ` src_locs P" using ru by auto
    then have "(enc (f r), enc r) \<in> opencl_rsp_n100 ?X \<inter> opencl_rsp_n134 ?X"
      using x w(1) evs
      by (auto simp: opencl_rsp_n100_def opencl_rsp_n134_def opencl_rsp_n132_def tag_XS tags_global tags_IW events_XS)
    then show ?thesis unfolding r(2) XS_ghb_gen by blast
  next
    case False
    then obtain t i q where fr: "f r = Acc t i q" by (cases "f r") auto
    have a: "acc P t i q" "wr (ins P t i) q" using w(1) fr by simp_all
    have b: "acc P u j False" using r(1) ru by simp
    have same: "addr_of (ins P u j) = addr_of (ins P t i)" using w(2) fr ru by simp
    have na: "nal_ev P (Acc t i q)" using nl w(2) fr by (simp add: nal_ev_def)
    have ut: "u = t" using race_free_nonatomic_local[OF nr rfree fin a b same na] .
    have ne: "(i, q) \<noteq> (j, False)"
    proof
      assume "(i, q) = (j, False)"
      then have "f r = r" using fr ru ut by simp
      then show False using r(1) w(1) rd_not_wr by metis
    qed
    have "(f r, r) \<in> src_po P \<or> (r, f r) \<in> src_po P"
    proof (cases "i < j")
      case True
      then have "(Acc t i q, Acc t j False) \<in> src_po P" using a(1) b ut unfolding src_po_def by blast
      then show ?thesis using fr ru ut by simp
    next
      case False
      then have "j < i \<or> (j = i \<and> q)" using ne by auto
      then have "(Acc t j False, Acc t i q) \<in> src_po P" using a(1) b ut unfolding src_po_def by blast
      then show ?thesis using fr ru ut by simp
    qed
    then show ?thesis
    proof
      assume "(f r, r) \<in> src_po P"
      then show ?thesis using po_g r(2) by blast
    next
      assume "(r, f r) \<in> src_po P"
      then have "(enc r, enc (f r)) \<in> opencl_rsp_n152 ?X" using po_g unfolding opencl_rsp_n152_def by blast
      moreover have "(enc (f r), enc r) \<in> rf ?X" using rf_XS r(1) by blast
      ultimately show ?thesis using cy unfolding irrefl_def by blast
    qed
  qed
qed

lemma pw_tregs: "tregs (src_code (plain_as_wg P) t) = tregs (src_code P t)"
proof -
  have "tregs (src_code (plain_as_wg P) t) rv i = tregs (src_code P t) rv i" for rv i
    by (induction i) (simp_all add: plain_as_wg_def nth_map_any pwi_kept)
  then show ?thesis by (intro ext) simp
qed

lemma pwi_store: "(\<exists>sc. plain_wg_ins N c = Op (Store sc rm) r x) \<longleftrightarrow> (\<exists>sc. c = Op (Store sc rm) r x)"
  by (cases c) (auto simp: plain_wg_ins_def plain_wg_def)

lemma pwi_rmw: "plain_wg_ins N c = Op (FetchInc sc rm) r x \<longleftrightarrow> c = Op (FetchInc sc rm) r x"
  by (cases c) (auto simp: plain_wg_ins_def plain_wg_def)

lemma pw_values [simp]: "values_ok (plain_as_wg P) = values_ok P"
proof -
  have st: "(\<exists>sc. ins (plain_as_wg P) t i = Op (Store sc rm) r x) \<longleftrightarrow> (\<exists>sc. ins P t i = Op (Store sc rm) r x)"
    for t i rm r x by (simp add: pw_ins pwi_store)
  have s3: "(\<forall>t i r x sc rm. acc P t i False \<longrightarrow> ins (plain_as_wg P) t i = Op (Store sc rm) r x \<longrightarrow> Q t i r)
      \<longleftrightarrow> (\<forall>t i r x sc rm. acc P t i False \<longrightarrow> ins P t i = Op (Store sc rm) r x \<longrightarrow> Q t i r)" for Q
  proof (intro iffI allI impI)
    fix t i r x sc rm
    assume h: "\<forall>t i r x sc rm. acc P t i False \<longrightarrow> ins (plain_as_wg P) t i = Op (Store sc rm) r x \<longrightarrow> Q t i r"
      and a: "acc P t i False" and e: "ins P t i = Op (Store sc rm) r x"
    obtain sc' where "ins (plain_as_wg P) t i = Op (Store sc' rm) r x" using st e by blast
    then show "Q t i r" using h a by blast
  next
    fix t i r x sc rm
    assume h: "\<forall>t i r x sc rm. acc P t i False \<longrightarrow> ins P t i = Op (Store sc rm) r x \<longrightarrow> Q t i r"
      and a: "acc P t i False" and e: "ins (plain_as_wg P) t i = Op (Store sc rm) r x"
    obtain sc' where "ins P t i = Op (Store sc' rm) r x" using st e by blast
    then show "Q t i r" using h a by blast
  qed
  show ?thesis
    by (intro ext) (simp only: values_ok_def pw_ev pw_simps pw_tregs s3)
qed

lemma pw_cand [simp]: "cand_ok (plain_as_wg P) = cand_ok P" "is_outcome (plain_as_wg P) = is_outcome P"
proof -
  show "cand_ok (plain_as_wg P) = cand_ok P" by (intro ext) (simp only: cand_ok_def pw_ev pw_values)
  have "src_regs (plain_as_wg P) = src_regs P" by (intro ext) (simp add: src_regs_def pw_tregs)
  then show "is_outcome (plain_as_wg P) = is_outcome P"
    by (intro ext) (simp only: is_outcome_def pw_ev pw_simps)
qed

lemma pw_na_rmw [simp]: "na_rmw (plain_as_wg P) = na_rmw P"
proof -
  have "ins (plain_as_wg P) t i = Op (FetchInc sc rm) r x \<longleftrightarrow> ins P t i = Op (FetchInc sc rm) r x" for t i sc rm r x
    by (simp add: pw_ins pwi_rmw)
  then show ?thesis by (simp add: na_rmw_def)
qed

text \<open>So a consistent candidate of the program with its plain partners read
  as atomics is one of the program, and a race of it one of the program.\<close>
lemma pw_consistent:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and c: "cand_ok P f cs v"
    and cy: "opencl_rsp_consistent (src_exec L (plain_as_wg P) f cs)"
  shows "opencl_rsp_consistent (src_exec L P f cs)"
proof -
  interpret tags_grow "src_exec L P f cs" "src_exec L (plain_as_wg P) f cs" by (rule pw_grows)
  have "irrefl (opencl_rsp_rf_hb (src_exec L (plain_as_wg P) f cs))"
    using cy unfolding opencl_rsp_consistent_def by blast
  then have ir: "irrefl (rf (src_exec L P f cs) O opencl_rsp_n152 (src_exec L P f cs))"
    using n152 unfolding irrefl_def opencl_rsp_rf_hb_def same by blast
  have ln: "rf (src_exec L P f cs) O Id_on (tag (src_exec L P f cs) ''nonatomicloc'' \<inter> tag (src_exec L P f cs) ''local'')
      \<subseteq> opencl_rsp_n140 (src_exec L P f cs)"
    by (simp only: tag_XS_none Int_empty_right Id_on_empty relcomp_empty2 empty_subsetI)
  show ?thesis by (rule consistent_down[OF cy nal_rf_hb[OF nr rfree fin c ir] ln])
qed

theorem pw_race_free:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)"
  shows "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L (plain_as_wg P)"
proof
  assume "src_racy opencl_rsp_consistent opencl_rsp_data_race L (plain_as_wg P)"
  then obtain f cs v where c: "cand_ok P f cs v" and cy: "opencl_rsp_consistent (src_exec L (plain_as_wg P) f cs)"
    and d: "opencl_rsp_data_race (src_exec L (plain_as_wg P) f cs) \<noteq> {}"
    by (auto simp: src_racy_def)
  interpret tags_grow "src_exec L P f cs" "src_exec L (plain_as_wg P) f cs" by (rule pw_grows)
  have "opencl_rsp_consistent (src_exec L P f cs)" using pw_consistent[OF nr rfree fin c cy] .
  moreover have "opencl_rsp_data_race (src_exec L P f cs) \<noteq> {}" using d race_down by blast
  ultimately show False using rfree c by (auto simp: src_racy_def)
qed

theorem pw_allowed:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)"
  shows "src_allowed opencl_rsp_consistent L (plain_as_wg P) \<subseteq> src_allowed opencl_rsp_consistent L P"
  using pw_consistent[OF nr rfree fin] unfolding src_allowed_def pw_cand by blast

section \<open>Every outcome of a program whose remote operations meet plain accesses\<close>

text \<open>A scheme whose rows for plain loads and stores are its rows for
  work-group-scope ones, and takes those (rsp-new's: LD and ST).\<close>
definition plain_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "plain_rows S A \<longleftrightarrow> S (Load NonAtomic False) = S (Load WorkGroup False) \<and> S (Store NonAtomic False) = S (Store WorkGroup False)
     \<and> Load WorkGroup False \<in> A \<and> Store WorkGroup False \<in> A"

lemma pw_compile:
  assumes pr: "plain_rows S A" shows "compile S (plain_as_wg P) = compile S P"
proof -
  have "compile_instr S \<circ> plain_wg_ins N = compile_instr S" for N
    using pr by (intro ext, case_tac x) (auto simp: compile_instr_def plain_wg_ins_def plain_wg_def plain_rows_def)
  then show ?thesis by (simp add: compile_def plain_as_wg_def)
qed

lemma pw_ops:
  assumes pr: "plain_rows S A" and o: "ops_of P \<subseteq> A" shows "ops_of (plain_as_wg P) \<subseteq> A"
proof -
  have "op_of (plain_wg_ins N c) \<subseteq> op_of c \<union> {Load WorkGroup False, Store WorkGroup False}" for N c
    by (cases c) (auto simp: op_of_def plain_wg_ins_def plain_wg_def)
  then have "ops_of (plain_as_wg P) \<subseteq> ops_of P \<union> {Load WorkGroup False, Store WorkGroup False}"
    unfolding ops_of_def by (fastforce simp: plain_as_wg_def)
  then show ?thesis using pr o by (auto simp: plain_rows_def)
qed

lemma pw_placed [simp]: "well_placed L (plain_as_wg P) = well_placed L P"
  and pw_dev [simp]: "dev_conflicts L (plain_as_wg P) = dev_conflicts L P"
  by (simp_all add: well_placed_def dev_conflicts_def)

lemma pw_sys [simp]: "sys_ev (plain_as_wg P) = sys_ev P" "remote_ev (plain_as_wg P) = remote_ev P"
proof -
  have "op_scope (plain_wg_ins N c) = AllDevices \<longleftrightarrow> op_scope c = AllDevices" for N c
    using pwi_cases[of N c] by auto
  then show "sys_ev (plain_as_wg P) = sys_ev P" by (intro ext, case_tac x) (simp_all add: sys_ev_def pw_ins)
  show "remote_ev (plain_as_wg P) = remote_ev P" by (intro ext, case_tac x) (simp_all add: remote_ev_def pw_kept)
qed

lemma pw_dev_sys [simp]: "dev_sys L (plain_as_wg P) = dev_sys L P"
  by (simp add: dev_sys_def)

text \<open>A remote operation is kept as it is.\<close>
lemma pw_remote_same: "op_remote (ins (plain_as_wg P) t i) = op_remote (ins P t i)"
  "op_remote (ins P t i) \<Longrightarrow> op_scope (ins (plain_as_wg P) t i) = op_scope (ins P t i)"
  using pw_kept(4) pw_same by simp_all

lemma pw_no_remote_sys [simp]: "no_remote_sys (plain_as_wg P) = no_remote_sys P"
  by (auto simp: no_remote_sys_def pw_remote_same)

text \<open>A program whose remote operations meet no plain access keeps
  load_promotion when its plain accesses are read as atomics: the two
  sides of each pair it names are remote or atomic, so unchanged.\<close>
lemma pw_load_promotion:
  assumes lp: "load_promotion L P" shows "load_promotion L (plain_as_wg P)"
proof -
  have fx: "ins (plain_as_wg P) t i = ins P t i \<and> ins (plain_as_wg P) u j = ins P u j"
    if h: "is_wr P (Acc t i p)" "is_rd P (Acc u j q) \<or> is_wr P (Acc u j q)" "t \<noteq> u"
      "sloc P (Acc t i p) = sloc P (Acc u j q)" "op_remote (ins P t i) \<or> op_remote (ins P u j)" for t i p u j q
  proof -
    note d = lp[unfolded load_promotion_def, rule_format, of t i p u j q, OF conjI[OF h(1) conjI[OF h(2) conjI[OF h(3) conjI[OF h(4) h(5)]]]]]
    have "(op_scope (ins P t i) \<noteq> NonAtomic \<or> op_remote (ins P t i)) \<and> (op_scope (ins P u j) \<noteq> NonAtomic \<or> op_remote (ins P u j))"
      using d by (auto simp: reaches_def rstore_ev_def split: src_scope.splits)
    then show ?thesis using pw_same by blast
  qed
  show ?thesis
    unfolding load_promotion_def
    apply (intro allI impI)
    subgoal for t i p u j q
      using fx[of t i p u j q] lp[unfolded load_promotion_def, rule_format, of t i p u j q]
      by (simp add: pw_kept reaches_def rstore_ev_def)
    done
qed

text \<open>On a race-free program whose remote operations promote as
  load_promotion says once its plain accesses of atomic locations are read
  as work-group-scope atomics, without non-atomic RMWs, whose conflicting
  accesses sit on one device, compiled by rows as machine_outcomes_allowed_rows
  asks that take the work-group rows for plain accesses: every outcome is
  one OpenCL+RSP allows.\<close>
theorem machine_outcomes_allowed_plain:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)" "lk_rows S (A \<union> B)" "plain_rows S (A \<union> B)"
    and wp: "well_placed L P" and ds: "dev_sys L P" and nr: "\<not> na_rmw P"
    and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and lp: "load_promotion L (plain_as_wg P)"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> src_allowed opencl_rsp_consistent L P"
proof -
  have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have wp': "well_placed L (plain_as_wg P)" using wp by simp
  have ds': "dev_sys L (plain_as_wg P)" using ds by simp
  have nr': "\<not> na_rmw (plain_as_wg P)" using nr by simp
  have "outcomes L wb (compile S (plain_as_wg P)) (initial (src_init (plain_as_wg P)))
      \<subseteq> src_allowed opencl_rsp_consistent L (plain_as_wg P)"
    by (rule machine_outcomes_allowed_rows[OF rows(1,2) pw_ops[OF rows(13,3)] rows(4-12) wp' ds' nr'
      pw_race_free[OF nr rfree fs] lp])
  then show ?thesis unfolding pw_compile[OF rows(13)] pw_simps using pw_allowed[OF nr rfree fs] by (rule order_trans)
qed

text \<open>With deadlock freedom: such a scheme is sound against OpenCL+RSP on
  every such program.\<close>
theorem machine_sound_on_plain:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)" "lk_rows S (A \<union> B)" "plain_rows S (A \<union> B)"
    "disciplined_scheme S" "well_placed L P" "dev_sys L P" "load_promotion L (plain_as_wg P)"
  shows "opencl_rsp_source.sound_on L wb S P"
proof -
  have c: "compilable S P" using assms(1-3) by (fastforce simp: compilable_def l1_rows_def l2_rows_def)
  show ?thesis unfolding opencl_rsp_source.sound_on_def
  proof (intro impI conjI)
    assume "\<not> (src_racy opencl_rsp_consistent opencl_rsp_data_race L P \<or> na_rmw P)"
    then have nr: "\<not> na_rmw P" and rf: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" by simp_all
    show "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> src_allowed opencl_rsp_consistent L P"
      by (rule machine_outcomes_allowed_plain[OF assms(1-13,15,16) nr rf assms(17)])
    show "deadlock_free L wb (compile S P) (initial (src_init P))"
      by (rule scheme_deadlock_free[OF assms(14) c assms(15)])
  qed
qed

section \<open>Every program whose remote operations stay on their device\<close>

text \<open>Remote operations at device scope or wider, the scopes a remote
  operation has ([RSP15] sec. 5.1; every scheme's remote rows).\<close>
definition remote_wide :: "src_program \<Rightarrow> bool" where
  "remote_wide P \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>i < length (src_code P t).
     op_remote (ins P t i) \<longrightarrow> op_scope (ins P t i) \<in> {Device, AllDevices})"

text \<open>A set of operations whose remote ones are at device scope or wider.\<close>
definition remote_wide_ops :: "src_op set \<Rightarrow> bool" where
  "remote_wide_ops A \<longleftrightarrow> (\<forall>sc. Load sc True \<in> A \<or> Store sc True \<in> A \<or> FetchInc sc True \<in> A
     \<longrightarrow> sc \<in> {Device, AllDevices})"

lemma ops_code:
  assumes o: "ops_of P \<subseteq> A" and t: "t \<in> src_threads P" and i: "i < length (src_code P t)"
    and c: "ins P t i = Op a r x"
  shows "a \<in> A"
proof -
  have "ins P t i \<in> set (src_code P t)" using i by (simp add: ins_def)
  then have "a \<in> ops_of P" using t c unfolding ops_of_def op_of_def by force
  then show ?thesis using o by blast
qed

lemma ops_remote_wide:
  assumes o: "ops_of P \<subseteq> A" and w: "remote_wide_ops A" shows "remote_wide P"
  unfolding remote_wide_def
proof (intro ballI allI impI)
  fix t i assume t: "t \<in> src_threads P" and i: "i < length (src_code P t)" and r: "op_remote (ins P t i)"
  obtain a rr x where c: "ins P t i = Op a rr x" using r by (cases "ins P t i") auto
  have a: "a \<in> A" by (rule ops_code[OF o t i c])
  show "op_scope (ins P t i) \<in> {Device, AllDevices}"
    using w a r c unfolding remote_wide_ops_def by (cases a) auto
qed

lemma ops_no_remote_sys:
  assumes o: "ops_of P \<subseteq> A"
    and n: "Load AllDevices True \<notin> A" "Store AllDevices True \<notin> A" "FetchInc AllDevices True \<notin> A"
  shows "no_remote_sys P"
  unfolding no_remote_sys_def
proof (intro ballI allI impI)
  fix t i assume t: "t \<in> src_threads P" and i: "i < length (src_code P t)" and r: "op_remote (ins P t i)"
  obtain a rr x where c: "ins P t i = Op a rr x" using r by (cases "ins P t i") auto
  have a: "a \<in> A" by (rule ops_code[OF o t i c])
  show "op_scope (ins P t i) \<noteq> AllDevices" using n a r c by (cases a) auto
qed

text \<open>A remote operation and an access of another thread it conflicts with
  sit on one device.\<close>
definition remote_local :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "remote_local L P \<longleftrightarrow> (\<forall>a b. is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
     \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> (remote_ev P a \<or> remote_ev P b) \<longrightarrow> dv L a = dv L b)"

lemma pw_remote [simp]: "remote_wide (plain_as_wg P) = remote_wide P"
  "remote_local L (plain_as_wg P) = remote_local L P"
  by (auto simp: remote_wide_def remote_local_def pw_remote_same)

text \<open>A race-free program without remote all-devices operations has it: a
  remote operation's scope holds only threads of its device, without
  promotion or with it, and so does the other access's where it holds the
  remote one (race_free_conflicts_incl: the model's scope inclusion n90;
  only all-devices scope holds a thread of another device, n82_sys).\<close>
theorem race_free_remote_local:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)" and ns: "no_remote_sys P"
  shows "remote_local L P"
  unfolding remote_local_def
proof (intro allI impI)
  fix a b assume h: "is_wr P a \<and> (is_rd P b \<or> is_wr P b) \<and> sloc P a = sloc P b
     \<and> ewg L a \<noteq> None \<and> ewg L b \<noteq> None \<and> (remote_ev P a \<or> remote_ev P b)"
  obtain t i p where a: "a = Acc t i p" using h by (cases a) auto
  obtain u j q where b: "b = Acc u j q" using h by (cases b) auto
  show "dv L a = dv L b"
  proof (rule ccontr)
    assume "dv L a \<noteq> dv L b"
    then have dvs: "dev_of L (wg_of L t) \<noteq> dev_of L (wg_of L u)" using a b by (simp add: dv_def)
    then have tu: "t \<noteq> u" by auto
    have acc_a: "acc P t i p" "wr (ins P t i) p" using h a by auto
    have acc_b: "acc P u j False" using h b acc_false by auto
    have sm: "addr_of (ins P u j) = addr_of (ins P t i)" using h a b by simp
    have ti: "t \<in> src_threads P" "i < length (src_code P t)" and uj: "u \<in> src_threads P" "j < length (src_code P u)"
      using acc_a(1) acc_b by (simp_all add: acc_def)
    have na: "op_scope (ins P t i) \<noteq> AllDevices" if "op_remote (ins P t i)"
      using ns ti that unfolding no_remote_sys_def by blast
    have nb: "op_scope (ins P u j) \<noteq> AllDevices" if "op_remote (ins P u j)"
      using ns uj that unfolding no_remote_sys_def by blast
    have rm: "op_remote (ins P t i) \<or> op_remote (ins P u j)" using h a b by (auto simp: remote_ev_def)
    let ?X = "src_exec L P (\<lambda>r. r) {}"
    have n90: "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n90 ?X"
      using race_free_conflicts_incl[OF nr rfree fin acc_a acc_b tu sm] .
    have s1: "op_scope (ins P t i) = AllDevices" if "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 ?X"
      using n82_sys[OF that dvs] .
    have s2: "op_scope (ins P u j) = AllDevices" if "(enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 ?X"
      using n82_sys[OF that] dvs by metis
    have "((enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 ?X \<and> (enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 ?X)
      \<or> (enc (Acc t i p) \<in> tag ?X ''remote'' \<and> (enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 ?X)
      \<or> (enc (Acc u j False) \<in> tag ?X ''remote'' \<and> (enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 ?X)"
      using n90 unfolding opencl_rsp_n90_def opencl_rsp_n83_def opencl_rsp_n86_def conv_is_converse by blast
    then show False
    proof (elim disjE conjE)
      assume "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 ?X" "(enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 ?X"
      then show False using s1 s2 rm na nb by blast
    next
      assume "enc (Acc t i p) \<in> tag ?X ''remote''" "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n82 ?X"
      then show False using tag_remote_op s1 na by blast
    next
      assume "enc (Acc u j False) \<in> tag ?X ''remote''" "(enc (Acc u j False), enc (Acc t i p)) \<in> opencl_rsp_n82 ?X"
      then show False using tag_remote_op s2 nb by blast
    qed
  qed
qed

text \<open>An access of a location some operation accesses atomically is an atomic
  once plain accesses are read as work-group-scope ones (an RMW has a scope,
  a remote operation is at device scope or wider).\<close>
lemma pw_atomic:
  assumes nr: "\<not> na_rmw P" and rw: "remote_wide P" and a: "acc P t i p"
    and v: "v \<in> src_threads P" "k < length (src_code P v)" "addr_of (ins P v k) = addr_of (ins P t i)"
      "op_scope (ins P v k) \<noteq> NonAtomic"
  shows "op_scope (ins (plain_as_wg P) t i) \<noteq> NonAtomic"
proof -
  have ti: "t \<in> src_threads P" "i < length (src_code P t)" using a by (simp_all add: acc_def)
  obtain c r y where c: "ins P t i = Op c r y" using a by (cases "ins P t i") (auto simp: acc_def)
  have "y \<notin> nal_locs P" using v c unfolding nal_locs_def by force
  then have q: "ins (plain_as_wg P) t i = Op (plain_wg c) r y" using ti c by (simp add: pw_ins plain_wg_ins_def)
  have nf: "\<forall>rm. c \<noteq> FetchInc NonAtomic rm" using nr ti c unfolding na_rmw_def by blast
  have rw': "op_remote (ins P t i) \<longrightarrow> op_scope (ins P t i) \<in> {Device, AllDevices}"
    using rw ti unfolding remote_wide_def by blast
  show ?thesis using q c nf rw' by (cases c) (auto simp: plain_wg_def split: if_splits)
qed

text \<open>An operation that is remote is a remote load, store or RMW.\<close>
lemma remote_shape:
  assumes "op_remote c"
  shows "(\<exists>sc r x. c = Op (Load sc True) r x) \<or> (\<exists>sc r x. c = Op (FetchInc sc True) r x)
    \<or> (\<exists>sc r x. c = Op (Store sc True) r x)"
  using assms by (cases c rule: op_remote.cases) auto

text \<open>Where remote operations are at device scope or wider and stay on their
  device, remote operations promote at most as load_promotion says once
  plain accesses of atomic locations are read as work-group-scope atomics: a
  remote operation's scope holds every thread of its device (reaches), and
  the other access is an atomic.\<close>
theorem remote_load_promotion:
  assumes nr: "\<not> na_rmw P" and rw: "remote_wide P" and rl: "remote_local L P"
  shows "load_promotion L (plain_as_wg P)"
  unfolding load_promotion_def
proof (intro allI impI)
  fix t i p u j q
  let ?Q = "plain_as_wg P"
  assume h: "is_wr ?Q (Acc t i p) \<and> (is_rd ?Q (Acc u j q) \<or> is_wr ?Q (Acc u j q)) \<and> t \<noteq> u
     \<and> sloc ?Q (Acc t i p) = sloc ?Q (Acc u j q) \<and> (op_remote (ins ?Q t i) \<or> op_remote (ins ?Q u j))"
  have at: "acc P t i p" "wr (ins P t i) p" and au: "acc P u j q" using h by auto
  have sm: "addr_of (ins P u j) = addr_of (ins P t i)" using h by simp
  have rm: "op_remote (ins P t i) \<or> op_remote (ins P u j)" using h by (simp add: pw_remote_same)
  have dd: "dev_of L (wg_of L t) = dev_of L (wg_of L u)"
    using rl[unfolded remote_local_def, rule_format, of "Acc t i p" "Acc u j q"] h rm
    by (auto simp: remote_ev_def dv_def)
  have ti: "t \<in> src_threads P" "i < length (src_code P t)" and uj: "u \<in> src_threads P" "j < length (src_code P u)"
    using at(1) au by (simp_all add: acc_def)
  have wt: "op_scope (ins P t i) \<in> {Device, AllDevices}" if "op_remote (ins P t i)"
    using rw ti that unfolding remote_wide_def by blast
  have wu: "op_scope (ins P u j) \<in> {Device, AllDevices}" if "op_remote (ins P u j)"
    using rw uj that unfolding remote_wide_def by blast
  have rt: "reaches L ?Q t i u" if "op_remote (ins P t i)"
    using wt[OF that] pw_remote_same(2)[OF that] dd by (auto simp: reaches_def)
  have ru: "reaches L ?Q u j t" if "op_remote (ins P u j)"
    using wu[OF that] pw_remote_same(2)[OF that] dd by (auto simp: reaches_def)
  have ct: "op_scope (ins ?Q t i) \<noteq> NonAtomic" if "op_remote (ins P u j)"
    using pw_atomic[OF nr rw at(1) uj sm] wu[OF that] by auto
  have cu: "op_scope (ins ?Q u j) \<noteq> NonAtomic" if "op_remote (ins P t i)"
    using pw_atomic[OF nr rw au ti sm[symmetric]] wt[OF that] by auto
  show "(reaches L ?Q t i u \<and> reaches L ?Q u j t)
       \<or> ((rstore_ev ?Q (Acc t i p) \<or> (\<exists>sc r x. ins ?Q t i = Op (FetchInc sc True) r x))
          \<and> reaches L ?Q t i u \<and> \<not> is_wr ?Q (Acc u j q) \<and> op_scope (ins ?Q u j) \<noteq> NonAtomic)
       \<or> (((\<exists>sc r x. ins ?Q u j = Op (Load sc True) r x)
            \<or> (\<exists>sc r x. ins ?Q u j = Op (FetchInc sc True) r x) \<or> (\<exists>sc r x. ins ?Q u j = Op (Store sc True) r x))
          \<and> reaches L ?Q u j t \<and> \<not> op_remote (ins ?Q t i) \<and> op_scope (ins ?Q t i) \<noteq> NonAtomic)
       \<or> ((rstore_ev ?Q (Acc t i p) \<or> (\<exists>sc r x. ins ?Q t i = Op (FetchInc sc True) r x)) \<and> reaches L ?Q t i u
          \<and> is_wr ?Q (Acc u j q) \<and> \<not> op_remote (ins ?Q u j) \<and> op_scope (ins ?Q u j) \<noteq> NonAtomic)"
  proof (cases "op_remote (ins P t i)")
    case tr: True
    show ?thesis
    proof (cases "op_remote (ins P u j)")
      case True
      then show ?thesis using rt[OF tr] ru by blast
    next
      case ur: False
      have "op_remote (ins ?Q t i)" "wr (ins ?Q t i) p" using tr at(2) by (simp_all add: pw_remote_same pw_kept)
      then have "rstore_ev ?Q (Acc t i p) \<or> (\<exists>sc r x. ins ?Q t i = Op (FetchInc sc True) r x)"
        using remote_shape[of "ins ?Q t i"] by (auto simp: rstore_ev_def)
      then show ?thesis using rt[OF tr] cu[OF tr] ur by (simp add: pw_remote_same)
    qed
  next
    case tr: False
    then have ur: "op_remote (ins P u j)" using rm by blast
    have "op_remote (ins ?Q u j)" using ur by (simp add: pw_remote_same)
    then show ?thesis using remote_shape[of "ins ?Q u j"] ru[OF ur] ct[OF ur] tr by (simp add: pw_remote_same)
  qed
qed

text \<open>Two devices then share a written location only through all-devices
  atomics, neither remote (race_free_dev_scoped's pairs, the remote ones
  aside).\<close>
lemma dev_scoped_sys:
  assumes "dev_scoped L P" "remote_local L P" shows "dev_sys L P"
  using assms unfolding dev_scoped_def remote_local_def dev_sys_def xdev_pair_def by blast

text \<open>So such a scheme is sound against OpenCL+RSP on every program whose
  remote operations are at device scope or wider and, where it is race-free,
  meet accesses of their own device only: race-free, the program promotes
  at most as load_promotion says once its plain accesses are read as
  work-group-scope atomics (remote_load_promotion), and shares a written
  location across devices only through all-devices atomics, neither remote
  (race_free_dev_scoped).\<close>
theorem machine_sound_on_local:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    "lk_rows S (A \<union> B)" "plain_rows S (A \<union> B)"
    and ds: "disciplined_scheme S" and wp: "well_placed L P" and rw: "remote_wide P"
    and rl: "\<not> na_rmw P \<Longrightarrow> \<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P \<Longrightarrow> remote_local L P"
  shows "opencl_rsp_source.sound_on L wb S P"
proof -
  have c: "compilable S P" using rows(1-3) by (fastforce simp: compilable_def l1_rows_def l2_rows_def)
  show ?thesis unfolding opencl_rsp_source.sound_on_def
  proof (intro impI conjI)
    assume "\<not> (src_racy opencl_rsp_consistent opencl_rsp_data_race L P \<or> na_rmw P)"
    then have nr: "\<not> na_rmw P" and rf: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" by simp_all
    have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
    have rl': "remote_local L P" using rl[OF nr rf] .
    have lp: "load_promotion L (plain_as_wg P)" by (rule remote_load_promotion[OF nr rw rl'])
    have "dev_scoped L (plain_as_wg P)"
      by (rule race_free_dev_scoped) (use nr rf fs lp pw_race_free[OF nr rf fs] in simp_all)
    then have "dev_sys L (plain_as_wg P)" using rl' by (intro dev_scoped_sys) simp_all
    then have dsy: "dev_sys L P" by simp
    show "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> src_allowed opencl_rsp_consistent L P"
      by (rule machine_outcomes_allowed_plain[OF rows wp dsy nr rf lp])
    show "deadlock_free L wb (compile S P) (initial (src_init P))"
      by (rule scheme_deadlock_free[OF ds c wp])
  qed
qed

corollary machine_sound_on_remote_local:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    "lk_rows S (A \<union> B)" "plain_rows S (A \<union> B)"
    and ds: "disciplined_scheme S" and wp: "well_placed L P" and rw: "remote_wide P" and rl: "remote_local L P"
  shows "opencl_rsp_source.sound_on L wb S P"
  using machine_sound_on_local[OF rows ds wp rw] rl by blast

text \<open>So on any number of devices: such a scheme is sound against OpenCL+RSP
  on every program without remote all-devices operations whose remote
  operations are at device scope (race_free_remote_local).\<close>
theorem machine_sound_on_devices:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    "lk_rows S (A \<union> B)" "plain_rows S (A \<union> B)"
    and ds: "disciplined_scheme S" and wp: "well_placed L P" and rw: "remote_wide P" and ns: "no_remote_sys P"
  shows "opencl_rsp_source.sound_on L wb S P"
proof -
  have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  show ?thesis using machine_sound_on_local[OF rows ds wp rw] race_free_remote_local[OF _ _ fs ns] by blast
qed

text \<open>So a scheme with such rows for every operation it compiles, whose
  remote rows are at device scope, is sound against OpenCL+RSP: [RSP15]
  sec. 5's theorem (Hrf_Mapping's sound), for every program it compiles,
  of any length and thread count, on every placement on any number of
  devices, under both write-back policies.\<close>
theorem scheme_sound:
  assumes rows: "l1_rows S A" "l2_rows S B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    "lk_rows S (A \<union> B)" "plain_rows S (A \<union> B)"
    and ds: "disciplined_scheme S" and dom: "dom S \<subseteq> A \<union> B" and rw: "remote_wide_ops (A \<union> B)"
    and n: "Load AllDevices True \<notin> A \<union> B" "Store AllDevices True \<notin> A \<union> B" "FetchInc AllDevices True \<notin> A \<union> B"
  shows "opencl_rsp_source.sound S"
  unfolding opencl_rsp_source.sound_def
proof (intro allI impI)
  fix L wb P assume h: "well_placed L P \<and> compilable S P"
  have o: "ops_of P \<subseteq> A \<union> B" using h dom unfolding compilable_def dom_def by blast
  show "opencl_rsp_source.sound_on L wb S P"
    by (rule machine_sound_on_devices[OF rows(1,2) o rows(3-12) ds _ ops_remote_wide[OF o rw] ops_no_remote_sys[OF o n]])
      (use h in simp)
qed

end
