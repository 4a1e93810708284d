(* hrf base theory: [HRFR15] App. A, Theorem A.4 (with Lemmas A.1-A.3 as
   steps), proved for all executions over the exported definitions of
   HRF-direct-relaxed and HRF-indirect-relaxed (Model_hrf_direct_relaxed,
   Model_hrf_indirect_relaxed: generated from python/hrf/models/hrf_relaxed.py
   and kept here as base theories). Written by hand; docs/isabelle.md sets
   each statement beside the paper's wording. *)
theory Hrf_Relaxed_Theorems
  imports Hrf_Theorems Model_hrf_direct_relaxed Model_hrf_indirect_relaxed
begin

section \<open>The orders of a finite set are strict total orders\<close>

lemma distinct_ins_all: "distinct ys \<Longrightarrow> x \<notin> set ys \<Longrightarrow> q \<in> set (ins_all x ys) \<Longrightarrow> distinct q"
proof (induction ys arbitrary: q)
  case Nil
  then show ?case by simp
next
  case (Cons y ys)
  from Cons.prems(3) consider "q = x # y # ys" | q' where "q = y # q'" "q' \<in> set (ins_all x ys)"
    by auto
  then show ?case
  proof cases
    case 1
    with Cons.prems show ?thesis by simp
  next
    case 2
    with Cons.prems Cons.IH[of q'] set_ins_all[of q' x ys] show ?thesis by auto
  qed
qed

lemma perms_distinct: "distinct xs \<Longrightarrow> q \<in> set (perms xs) \<Longrightarrow> distinct q \<and> set q = set xs"
proof (induction xs arbitrary: q)
  case Nil
  then show ?case by simp
next
  case (Cons x xs)
  then obtain p where p: "p \<in> set (perms xs)" "q \<in> set (ins_all x p)"
    by auto
  with Cons have "distinct p" "set p = set xs" by auto
  with Cons.prems(1) p(2) show ?case
    using distinct_ins_all[of p x q] set_ins_all[of q x p] by auto
qed

lemma order_of_within: "order_of q \<subseteq> set q \<times> set q"
  by (induction q) auto

lemma order_of_irrefl: "distinct q \<Longrightarrow> (a, a) \<notin> order_of q"
  by (induction q) (auto dest: subsetD[OF order_of_within])

lemma order_of_trans: "distinct q \<Longrightarrow> trans (order_of q)"
proof (induction q)
  case Nil
  then show ?case by (simp add: trans_def)
next
  case (Cons x xs)
  then have IH: "trans (order_of xs)" and x: "x \<notin> set xs" by auto
  show ?case
    unfolding trans_def
  proof (intro allI impI)
    fix a b c
    assume ab: "(a, b) \<in> order_of (x # xs)" and bc: "(b, c) \<in> order_of (x # xs)"
    have bc': "(b, c) \<in> order_of xs"
      using ab bc x order_of_within[of xs] by auto
    then have "c \<in> set xs" using order_of_within[of xs] by auto
    with ab bc' IH show "(a, c) \<in> order_of (x # xs)"
      unfolding trans_def by auto
  qed
qed

lemma order_of_total: "a \<in> set q \<Longrightarrow> b \<in> set q \<Longrightarrow> a \<noteq> b \<Longrightarrow> (a, b) \<in> order_of q \<or> (b, a) \<in> order_of q"
  by (induction q) auto

lemma total_orders_strict:
  assumes fin: "finite S" and R: "R \<in> total_orders S"
  shows "R \<subseteq> S \<times> S" "trans R" "irrefl R" "\<forall>a \<in> S. \<forall>b \<in> S. a \<noteq> b \<longrightarrow> (a, b) \<in> R \<or> (b, a) \<in> R"
proof -
  from R obtain q where q: "q \<in> set (perms (sorted_list_of_set S))" "R = order_of q"
    unfolding total_orders_def by auto
  have "distinct q" "set q = S"
    using perms_distinct[OF distinct_sorted_list_of_set q(1)] fin by auto
  with q(2) show "R \<subseteq> S \<times> S" "trans R" "irrefl R" "\<forall>a \<in> S. \<forall>b \<in> S. a \<noteq> b \<longrightarrow> (a, b) \<in> R \<or> (b, a) \<in> R"
    using order_of_within[of q] order_of_trans[of q] order_of_irrefl[of q] order_of_total[of _ q]
    by (auto simp: irrefl_def)
qed

section \<open>Program order and a total order of some events make no cycle\<close>

text \<open>Where a strict order p agrees with a strict total order s of a set A
  on the pairs of A, p and s together make no cycle: a cycle alternates
  p-chains and s-steps, and each p-chain between two elements of A is an
  s-step.\<close>
lemma acyclic_agreeing_orders:
  fixes p s :: "'a rel"
  assumes p_trans: "trans p" and p_irrefl: "irrefl p" and s_trans: "trans s" and s_irrefl: "irrefl s"
    and s_in: "s \<subseteq> A \<times> A" and agree: "p \<inter> (A \<times> A) \<subseteq> s"
  shows "acyclic (p \<union> s)"
proof -
  define T where "T = p \<union> (p\<^sup>= O s O p\<^sup>=)"
  have pp: "(a, c) \<in> p\<^sup>=" if "(a, b) \<in> p\<^sup>=" "(b, c) \<in> p\<^sup>=" for a b c
    using that p_trans unfolding trans_def by blast
  have sps: "(a, d) \<in> s" if "(a, b) \<in> s" "(b, c) \<in> p\<^sup>=" "(c, d) \<in> s" for a b c d
  proof -
    have "(b, c) \<in> s\<^sup>="
      using that s_in agree by blast
    then show ?thesis
      using that s_trans unfolding trans_def by blast
  qed
  have "trans T"
    unfolding trans_def T_def
  proof (intro allI impI)
    fix x y z
    assume xy: "(x, y) \<in> p \<union> p\<^sup>= O s O p\<^sup>=" and yz: "(y, z) \<in> p \<union> p\<^sup>= O s O p\<^sup>="
    show "(x, z) \<in> p \<union> p\<^sup>= O s O p\<^sup>="
    proof (cases "(x, y) \<in> p")
      case xyp: True
      show ?thesis
      proof (cases "(y, z) \<in> p")
        case True
        with xyp p_trans show ?thesis unfolding trans_def by blast
      next
        case False
        with yz obtain b c where "(y, b) \<in> p\<^sup>=" "(b, c) \<in> s" "(c, z) \<in> p\<^sup>=" by blast
        with xyp pp[of x y b] show ?thesis by blast
      qed
    next
      case False
      with xy obtain a b where ab: "(x, a) \<in> p\<^sup>=" "(a, b) \<in> s" "(b, y) \<in> p\<^sup>=" by blast
      show ?thesis
      proof (cases "(y, z) \<in> p")
        case True
        with ab pp[of b y z] show ?thesis by blast
      next
        case False
        with yz obtain c d where cd: "(y, c) \<in> p\<^sup>=" "(c, d) \<in> s" "(d, z) \<in> p\<^sup>=" by blast
        have "(b, c) \<in> p\<^sup>=" using ab(3) cd(1) pp by blast
        then have "(a, d) \<in> s" using sps[OF ab(2) _ cd(2)] by blast
        with ab(1) cd(3) show ?thesis by blast
      qed
    qed
  qed
  have irr: "(x, x) \<notin> T" for x
  proof
    assume "(x, x) \<in> T"
    then show False
      unfolding T_def
    proof
      assume "(x, x) \<in> p"
      with p_irrefl show False by (simp add: irrefl_def)
    next
      assume "(x, x) \<in> p\<^sup>= O s O p\<^sup>="
      then obtain a b where ab: "(x, a) \<in> p\<^sup>=" "(a, b) \<in> s" "(b, x) \<in> p\<^sup>=" by blast
      have "(b, a) \<in> p\<^sup>=" using ab(3) ab(1) pp by blast
      then have "(b, a) \<in> s\<^sup>=" using ab(2) s_in agree by blast
      then have "(a, a) \<in> s" using ab(2) s_trans unfolding trans_def by blast
      with s_irrefl show False by (simp add: irrefl_def)
    qed
  qed
  have "p \<union> s \<subseteq> T"
  proof
    fix z assume "z \<in> p \<union> s"
    then show "z \<in> T" unfolding T_def by (cases z) fastforce
  qed
  then have "(p \<union> s)\<^sup>+ \<subseteq> T"
    using trancl_mono trancl_id[OF \<open>trans T\<close>] by (metis subrelI)
  with irr show ?thesis
    unfolding acyclic_def by blast
qed

section \<open>Closures\<close>

lemma trancl_subset_mono:
  assumes "r \<subseteq> s" shows "r\<^sup>+ \<subseteq> s\<^sup>+"
proof
  fix z assume "z \<in> r\<^sup>+"
  from trancl_mono[OF this assms] show "z \<in> s\<^sup>+" .
qed

lemma acyclic_within_trancl:
  assumes "acyclic r" and "s \<subseteq> r\<^sup>+" shows "acyclic s"
proof -
  have "s\<^sup>+ \<subseteq> r\<^sup>+"
    using trancl_subset_mono[OF assms(2)] trancl_id[OF trans_trancl[of r]] by simp
  with assms(1) show ?thesis unfolding acyclic_def by blast
qed

section \<open>SC for HRF-relaxed programs with seq_cst atomics only\<close>

text \<open>The skeleton of [HRFR15] Fig. 9 (both variants share it), with only
  seq_cst atomics: a happens-before hhb within the closure of program order
  and a synchronisation order so, so relating atomics that read one another
  through coherence; an apparent total order ord of the atomics that
  contradicts no hhb edge; coherence acyclic with hhb, po and ord on each
  location; every conflict involving an ordinary access ordered by hhb.
  Then the execution is SC. The steps: a synchronisation edge and a
  communication edge between atomics go the way ord goes (the other way
  would close a cycle with coherence: Lemmas A.1, A.3); po and ord make no
  cycle (ord agrees with po on the atomics), hence neither do hhb and ord;
  then drf_sc (Lemma A.2, Theorem A.4). Conflicts between atomics need no
  hhb edge here: ord orders them all.\<close>
theorem relaxed_drf_sc:
  fixes hhb so ord :: "event rel" and S :: "event set"
  assumes wf: "well_formed X"
    and only_ord: "atomics X \<subseteq> S"
    and ord_in: "ord \<subseteq> S \<times> S" and ord_trans: "trans ord" and ord_irrefl: "irrefl ord"
    and ord_total: "\<forall>a \<in> S. \<forall>b \<in> S. a \<noteq> b \<longrightarrow> (a, b) \<in> ord \<or> (b, a) \<in> ord"
    and po_hhb: "po X \<subseteq> hhb"
    and hhb_so: "hhb \<subseteq> (po X \<union> so)\<^sup>+"
    and so_atomic: "so \<subseteq> (atomics X \<times> atomics X) \<inter> (opt X (co X) O rf X)"
    and hhb_acyclic: "acyclic hhb"
    and ord_hhb: "ord \<inter> hhb\<inverse> = {}"
    and coherence: "acyclic (com X \<union> ((po X \<union> ord \<union> hhb) \<inter> loc X))"
    and ordered: "conflict X - atomics X \<times> atomics X \<subseteq> hhb \<union> hhb\<inverse>"
    and rmw: "atomicity_violation X = {}"
  shows "sc_consistent X"
proof -
  let ?C = "com X \<union> ((po X \<union> ord \<union> hhb) \<inter> loc X)"
  have rf_loc: "rf X \<subseteq> loc X" and co_loc: "co X \<subseteq> loc X"
    using rf_shape[OF wf] co_shape[OF wf] by blast+
  have com_loc: "com X \<subseteq> loc X"
    using rf_loc co_loc com_shape[OF wf] by blast
  text \<open>A pair of atomics joined by a chain of communication goes the way
    ord goes (Lemma A.1 for seq_cst atomics; A.3 for synchronisation).\<close>
  have with_ord: "(a, b) \<in> ord"
    if ab: "(a, b) \<in> (com X)\<^sup>+" "(a, b) \<in> loc X" and atoms: "a \<in> atomics X" "b \<in> atomics X" for a b
  proof -
    have C: "(a, b) \<in> ?C\<^sup>+" using trancl_mono[OF ab(1), of ?C] by blast
    have "a \<noteq> b" using C coherence unfolding acyclic_def by blast
    moreover have "(b, a) \<notin> ord"
    proof
      assume "(b, a) \<in> ord"
      with ab(2) loc_sym have "(b, a) \<in> ?C" by blast
      with C have "(a, a) \<in> ?C\<^sup>+" by (meson trancl_into_trancl)
      with coherence show False unfolding acyclic_def by blast
    qed
    ultimately show ?thesis using ord_total atoms only_ord by blast
  qed
  have so_ord: "so \<subseteq> ord"
  proof
    fix p assume p: "p \<in> so"
    then obtain a b where ab: "p = (a, b)" by (cases p)
    with p so_atomic have atoms: "a \<in> atomics X" "b \<in> atomics X" and "(a, b) \<in> opt X (co X) O rf X"
      by blast+
    then obtain c where ac: "(a, c) \<in> co X \<or> a = c" and cb: "(c, b) \<in> rf X"
      unfolding opt_def by blast
    have "(a, b) \<in> (com X)\<^sup>+ \<and> (a, b) \<in> loc X"
    proof (cases "a = c")
      case True
      with cb rf_loc show ?thesis by (auto simp: com_def)
    next
      case False
      with ac have "(a, c) \<in> co X" by blast
      with cb rf_loc co_loc loc_trans have "(a, b) \<in> loc X"
        unfolding trans_def by blast
      moreover have "(a, b) \<in> (com X)\<^sup>+"
        using \<open>(a, c) \<in> co X\<close> cb unfolding com_def by (meson UnI1 UnI2 r_into_trancl' trancl_into_trancl)
      ultimately show ?thesis by blast
    qed
    with atoms ab show "p \<in> ord" using with_ord by blast
  qed
  have com_ord: "com X \<inter> (atomics X \<times> atomics X) \<subseteq> ord"
    using with_ord com_loc by blast
  have po_trans: "trans (po X)" unfolding po_def by (rule trans_trancl)
  have po_irrefl: "irrefl (po X)"
  proof -
    have "acyclic (po X)" using hhb_acyclic po_hhb by (rule acyclic_subset)
    then show ?thesis unfolding acyclic_def irrefl_def by blast
  qed
  have po_ord: "po X \<inter> (S \<times> S) \<subseteq> ord"
  proof
    fix p assume p: "p \<in> po X \<inter> (S \<times> S)"
    then obtain a b where ab: "p = (a, b)" by (cases p)
    with p po_irrefl have "a \<noteq> b" by (auto simp: irrefl_def)
    moreover have "(b, a) \<notin> ord" using p ab po_hhb ord_hhb by blast
    ultimately show "p \<in> ord" using p ab ord_total by blast
  qed
  have "acyclic (po X \<union> ord)"
    by (rule acyclic_agreeing_orders[OF po_trans po_irrefl ord_trans ord_irrefl ord_in po_ord])
  moreover have "hhb \<union> ord \<subseteq> (po X \<union> ord)\<^sup>+"
  proof -
    have "(po X \<union> so)\<^sup>+ \<subseteq> (po X \<union> ord)\<^sup>+" using so_ord by (intro trancl_subset_mono) blast
    moreover have "ord \<subseteq> (po X \<union> ord)\<^sup>+" by auto
    ultimately show ?thesis using hhb_so by blast
  qed
  ultimately have hb_sco: "acyclic (hhb \<union> ord)"
    by (rule acyclic_within_trancl)
  have coherent: "acyclic ((hhb \<inter> loc X) \<union> com X)"
    using coherence by (rule acyclic_subset) blast
  have "acyclic (sc_order X)"
    using drf_sc[OF wf po_hhb coherent ordered _ hb_sco] com_ord by blast
  with rmw show ?thesis by (simp add: sc_consistent_def)
qed

text \<open>The conflicts of the exported models are those of Hrf_Models
  (pairs of thread accesses to one location, one of them a write).\<close>
lemma conflict_tags:
  "conflict X = ((Id_on (events X - tag X ''IW'') O (loc X \<inter> ((tag X ''W'' \<times> tag X ''M'') \<union> (tag X ''M'' \<times> tag X ''W'')))) O Id_on (events X - tag X ''IW'')) - id_r X"
  by (simp add: conflict_def thread_events_def init_writes_def writes_def accesses_def O_assoc)

text \<open>The shape of the exported race check ([HRFR15] Fig. 9 sec. V): when
  it is empty, every ordinary conflict is ordered by hhb one way or the other.\<close>
lemma race_free_ordinary:
  assumes "((C \<inter> ((NA \<times> M) \<union> (M \<times> NA))) \<union> Y) - H - conv H = {}"
    and "p \<in> C" and "p \<in> (NA \<times> M) \<union> (M \<times> NA)"
  shows "p \<in> H \<union> H\<inverse>"
  using assms by (auto simp: conv_is_converse)

text \<open>The shapes of the exported definitions (Model_hrf_direct_relaxed,
  Model_hrf_indirect_relaxed): synchronisation, HRF-direct's
  happens-before.\<close>
lemma so_within: "(((Id_on P O C) O F) O Id_on Q) \<inter> I \<subseteq> (P \<times> Q) \<inter> (C O F)"
  by blast

lemma hhb_direct_within:
  "po X \<union> foreach X a (\<lambda>V. (po X \<union> ((Id_on V O (Sy \<inter> N)) \<union> ((Sy \<inter> conv N) O Id_on V)))\<^sup>+) \<subseteq> (po X \<union> Sy)\<^sup>+"
proof -
  have "(po X \<union> ((Id_on V O (Sy \<inter> N)) \<union> ((Sy \<inter> conv N) O Id_on V)))\<^sup>+ \<subseteq> (po X \<union> Sy)\<^sup>+" for V
    by (rule trancl_subset_mono) blast
  then have "foreach X a (\<lambda>V. (po X \<union> ((Id_on V O (Sy \<inter> N)) \<union> ((Sy \<inter> conv N) O Id_on V)))\<^sup>+) \<subseteq> (po X \<union> Sy)\<^sup>+"
    unfolding foreach_def by blast
  moreover have "po X \<subseteq> (po X \<union> Sy)\<^sup>+" by auto
  ultimately show ?thesis by blast
qed

text \<open>The model's checks as the exporter writes them (consistency: some
  total order of the seq_cst atomics, the apparent order of Fig. 9 sec. IV;
  the race check of sec. V) give relaxed_drf_sc what it needs, for any
  happens-before H within the closure of po and a synchronisation SO.\<close>
lemma sc_for_relaxed_export:
  fixes H SO C Y D HA RA :: "event rel" and M :: "event set"
  assumes wf: "well_formed X" and fin: "finite (atomics X)" and only_sc: "atomics X \<subseteq> tag X ''sc''"
    and consistent: "acyclic D \<and> acyclic HA \<and> RA = {}
     \<and> (let H1 = conv H; H2 = (rf X \<union> co X) \<union> fr X; H3 = H
        in (\<exists>R \<in> total_orders (tag X ''A'' \<inter> tag X ''sc''). R \<inter> H1 = {} \<and> acyclic (H2 \<union> (((po X \<union> R) \<union> H3) \<inter> loc X))))"
    and race: "((C \<inter> ((tag X ''NA'' \<times> M) \<union> (M \<times> tag X ''NA''))) \<union> Y) - H - conv H = {}"
    and HA: "HA = H" and RA: "RA = atomicity_violation X"
    and po_H: "po X \<subseteq> H" and H_so: "H \<subseteq> (po X \<union> SO)\<^sup>+"
    and SO: "SO \<subseteq> (atomics X \<times> atomics X) \<inter> (opt X (co X) O rf X)"
    and C: "C = conflict X" and M: "M = tag X ''A'' \<union> tag X ''NA''"
  shows "sc_consistent X"
proof -
  let ?S = "tag X ''A'' \<inter> tag X ''sc''"
  from consistent obtain ord where ord: "ord \<in> total_orders ?S" and ord_H: "ord \<inter> H\<inverse> = {}"
    and coherence: "acyclic (com X \<union> ((po X \<union> ord \<union> H) \<inter> loc X))"
    by (auto simp: Let_def conv_is_converse com_def Un_assoc)
  have H_acyclic: "acyclic H" and rmw: "atomicity_violation X = {}"
    using consistent HA RA by auto
  have fin_S: "finite ?S" using fin by (simp add: atomics_def)
  note strict = total_orders_strict[OF fin_S ord]
  have acc: "tag X ''M'' - tag X ''IW'' \<subseteq> tag X ''A'' \<union> tag X ''NA''" and wm: "tag X ''W'' \<subseteq> tag X ''M''"
    using wf by (auto simp: well_formed_def accesses_def atomics_def ordinary_def writes_def init_writes_def)
  have ordered: "conflict X - atomics X \<times> atomics X \<subseteq> H \<union> H\<inverse>"
  proof
    fix p assume p: "p \<in> conflict X - atomics X \<times> atomics X"
    obtain a b where ab: "p = (a, b)" by (cases p)
    have "p \<in> (tag X ''M'' - tag X ''IW'') \<times> (tag X ''M'' - tag X ''IW'')"
      using p wm unfolding conflict_def accesses_def writes_def thread_events_def init_writes_def by blast
    with p ab acc have "p \<in> (tag X ''NA'' \<times> M) \<union> (M \<times> tag X ''NA'')"
      unfolding M by (auto simp: atomics_def)
    with p race C show "p \<in> H \<union> H\<inverse>"
      by (auto simp: conv_is_converse)
  qed
  show ?thesis
    using relaxed_drf_sc[OF wf _ strict(1-4) po_H H_so SO H_acyclic ord_H coherence ordered rmw]
      only_sc by (auto simp: atomics_def)
qed

text \<open>[HRFR15] Theorem A.4 for HRF-direct-relaxed (Fig. 9) as hrf exports
  it: an execution of a program with only seq_cst atomics that the model
  finds consistent and free of heterogeneous races is SC.\<close>
theorem sc_for_hrf_direct_relaxed:
  assumes wf: "well_formed X"
    and fin: "finite (atomics X)"
    and only_sc: "atomics X \<subseteq> tag X ''sc''"
    and consistent: "hrf_direct_relaxed_consistent X"
    and race_free: "hrf_direct_relaxed_heterogeneous_race X = {}"
  shows "sc_consistent X"
  using consistent[unfolded hrf_direct_relaxed_consistent_def]
    race_free[unfolded hrf_direct_relaxed_heterogeneous_race_def]
  apply (rule sc_for_relaxed_export[OF wf fin only_sc, where SO = "hrf_direct_relaxed_so X"])
  subgoal by (simp only: hrf_direct_relaxed_hhb_acyclic_def)
  subgoal by (simp only: hrf_direct_relaxed_rmw_atomicity_def atomicity_violation_def)
  subgoal by (auto simp only: hrf_direct_relaxed_hhb_def)
  subgoal unfolding hrf_direct_relaxed_hhb_def by (rule hhb_direct_within)
  subgoal unfolding hrf_direct_relaxed_so_def by (rule subset_trans[OF so_within]) (auto simp: atomics_def)
  subgoal by (simp only: conflict_tags hrf_direct_relaxed_defs)
  subgoal by (simp only: hrf_direct_relaxed_defs)
  done

text \<open>The same for HRF-indirect-relaxed ([HRFR15] Fig. 12, hhb.ir = (po | so)+).\<close>
theorem sc_for_hrf_indirect_relaxed:
  assumes wf: "well_formed X"
    and fin: "finite (atomics X)"
    and only_sc: "atomics X \<subseteq> tag X ''sc''"
    and consistent: "hrf_indirect_relaxed_consistent X"
    and race_free: "hrf_indirect_relaxed_heterogeneous_race X = {}"
  shows "sc_consistent X"
  using consistent[unfolded hrf_indirect_relaxed_consistent_def]
    race_free[unfolded hrf_indirect_relaxed_heterogeneous_race_def]
  apply (rule sc_for_relaxed_export[OF wf fin only_sc, where SO = "hrf_indirect_relaxed_so X"])
  subgoal by (simp only: hrf_indirect_relaxed_hhb_acyclic_def)
  subgoal by (simp only: hrf_indirect_relaxed_rmw_atomicity_def atomicity_violation_def)
  subgoal unfolding hrf_indirect_relaxed_hhb_def by auto
  subgoal by (simp only: hrf_indirect_relaxed_hhb_def subset_refl)
  subgoal unfolding hrf_indirect_relaxed_so_def by (rule subset_trans[OF so_within]) (auto simp: atomics_def)
  subgoal by (simp only: conflict_tags hrf_indirect_relaxed_defs)
  subgoal by (simp only: hrf_indirect_relaxed_defs)
  done

end
