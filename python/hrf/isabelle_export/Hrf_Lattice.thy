(* hrf base theory: the inclusions between models that docs/models.md and
   hrf's property tests claim (tests/test_properties.py, the model lattice),
   proved for all executions over the exported definitions: an SC execution
   is consistent under HRF-direct-relaxed and HRF-indirect-relaxed, and a
   program race-free under HRF-direct-relaxed is race-free under
   HRF-indirect-relaxed. Written by hand; docs/isabelle.md sets each
   statement beside the papers' wording. *)
theory Hrf_Lattice
  imports Hrf_Relaxed_Theorems
begin

section \<open>Every strict order of a finite set extends to one of its listed orders\<close>

lemma ins_all_append: "p1 @ x # p2 \<in> set (ins_all x (p1 @ p2))"
proof (induction p1)
  case Nil
  then show ?case by (cases p2) auto
next
  case (Cons y ys)
  then show ?case by auto
qed

text \<open>perms lists every order of a list's elements (Hrf_Execution's
  perms_distinct is the other direction).\<close>
lemma perms_complete: "distinct xs \<Longrightarrow> distinct q \<Longrightarrow> set q = set xs \<Longrightarrow> q \<in> set (perms xs)"
proof (induction xs arbitrary: q)
  case Nil
  then show ?case by simp
next
  case (Cons x xs)
  have "x \<in> set q" using Cons.prems(3) by simp
  then obtain q1 q2 where q: "q = q1 @ x # q2" by (meson split_list)
  have x_out: "x \<notin> set q1" "x \<notin> set q2" "x \<notin> set xs"
    using Cons.prems(1,2) q by auto
  have "distinct (q1 @ q2)" using Cons.prems(2) q by simp
  moreover have "set (q1 @ q2) = set xs"
  proof -
    have "insert x (set (q1 @ q2)) = insert x (set xs)"
      using Cons.prems(3) q by auto
    with x_out show ?thesis by auto
  qed
  ultimately have "q1 @ q2 \<in> set (perms xs)"
    using Cons.IH Cons.prems(1) by simp
  then show ?case
    using q ins_all_append[of q1 x q2] by auto
qed

text \<open>A linear extension (Szpilrajn, for finite sets): the elements listed
  minimal first, so that every pair of an acyclic relation on them goes the
  way the list goes.\<close>
lemma linear_extension:
  assumes "finite S" and "acyclic r" and "r \<subseteq> S \<times> S"
  shows "\<exists>q. distinct q \<and> set q = S \<and> r \<subseteq> order_of q"
  using assms
proof (induction S arbitrary: r rule: finite_psubset_induct)
  case (psubset S)
  show ?case
  proof (cases "S = {}")
    case True
    with psubset.prems show ?thesis by (intro exI[of _ "[]"]) auto
  next
    case False
    then obtain x0 where "x0 \<in> S" by blast
    have "finite (S \<times> S)"
      using psubset.hyps(1) by simp
    then have "finite r"
      using psubset.prems(2) by (rule finite_subset[rotated])
    then have "wf r"
      using psubset.prems(1) by (rule finite_acyclic_wf)
    then obtain x where x: "x \<in> S" and min: "\<And>y. (y, x) \<in> r \<Longrightarrow> y \<notin> S"
      using \<open>x0 \<in> S\<close> by (rule wfE_min) blast
    define r' where "r' = r \<inter> ((S - {x}) \<times> (S - {x}))"
    have "acyclic r'"
      unfolding r'_def using psubset.prems(1) acyclic_subset by blast
    moreover have "r' \<subseteq> (S - {x}) \<times> (S - {x})"
      unfolding r'_def by blast
    moreover have "S - {x} \<subset> S" using x by blast
    ultimately obtain q where q: "distinct q" "set q = S - {x}" "r' \<subseteq> order_of q"
      using psubset.IH by meson
    have "r \<subseteq> order_of (x # q)"
    proof
      fix p assume p: "p \<in> r"
      obtain a b where ab: "p = (a, b)" by (cases p)
      have ab_S: "a \<in> S" "b \<in> S" using p ab psubset.prems(2) by auto
      have "b \<noteq> x" using min p ab ab_S by blast
      show "p \<in> order_of (x # q)"
      proof (cases "a = x")
        case True
        with ab ab_S \<open>b \<noteq> x\<close> q(2) show ?thesis by auto
      next
        case False
        with p ab ab_S \<open>b \<noteq> x\<close> q(3) show ?thesis unfolding r'_def by auto
      qed
    qed
    with q x show ?thesis
      by (intro exI[of _ "x # q"]) auto
  qed
qed

text \<open>Given a strict order T, some listed order of a finite set S makes no
  cycle with it: the list of a linear extension of T on S, which agrees
  with T on S (acyclic_agreeing_orders).\<close>
lemma witness_order_extending:
  assumes fin: "finite S" and acy: "acyclic T" and tr: "trans T"
  shows "\<exists>R \<in> total_orders S. acyclic (T \<union> R)"
proof -
  have "acyclic (T \<inter> (S \<times> S))" using acy acyclic_subset by blast
  then obtain q where q: "distinct q" "set q = S" "T \<inter> (S \<times> S) \<subseteq> order_of q"
    using linear_extension[OF fin] by blast
  have "q \<in> set (perms (sorted_list_of_set S))"
    using perms_complete[OF distinct_sorted_list_of_set q(1)] q(2) fin by simp
  then have R: "order_of q \<in> total_orders S"
    unfolding total_orders_def by simp
  have "irrefl T"
    using acy tr unfolding acyclic_def irrefl_def by (metis trancl_id)
  moreover have "irrefl (order_of q)"
    using order_of_irrefl[OF q(1)] by (simp add: irrefl_def)
  ultimately have "acyclic (T \<union> order_of q)"
    using acyclic_agreeing_orders[OF tr _ order_of_trans[OF q(1)] _ _ q(3)] order_of_within[of q] q(2)
    by blast
  with R show ?thesis by blast
qed

section \<open>SC executions are consistent under the HRF-relaxed models\<close>

text \<open>The exported shape of the HRF-relaxed family's consistency ([HRFR15]
  Fig. 9: no dependency cycle, hhb acyclic, RMW atomicity, an apparent
  order sc of the seq_cst atomics contradicting no hhb edge, coherence with
  po, sc and hhb on each location acyclic) holds of an SC execution, for any
  happens-before H within the closure of po and a synchronisation SO that
  reads through coherence (co?; rf). The witness order: the seq_cst atomics
  in the order of a linear extension of the SC order. Dependencies are
  assumed to go forward in program order (hrf's core builds them so).\<close>
lemma relaxed_export_of_sc:
  fixes H SO :: "event rel"
  assumes fin: "finite (atomics X)" and deps: "data X \<union> ctrl X \<subseteq> po X"
    and sc: "sc_consistent X"
    and H_so: "H \<subseteq> (po X \<union> SO)\<^sup>+" and SO: "SO \<subseteq> opt X (co X) O rf X"
  shows "acyclic (((data X \<union> ctrl X) \<union> addr X) \<union> rf X) \<and> acyclic H \<and> rmw X \<inter> (fr X O co X) = {}
     \<and> (let H1 = conv H; H2 = (rf X \<union> co X) \<union> fr X; H3 = H
        in (\<exists>R \<in> total_orders (tag X ''A'' \<inter> tag X ''sc''). R \<inter> H1 = {} \<and> acyclic (H2 \<union> (((po X \<union> R) \<union> H3) \<inter> loc X))))"
proof -
  define T where "T = (sc_order X)\<^sup>+"
  have acy: "acyclic T" and tr: "trans T"
    using sc unfolding sc_consistent_def T_def acyclic_def by simp_all
  have T_sc: "sc_order X \<subseteq> T" unfolding T_def by auto
  then have po_T: "po X \<subseteq> T" and com_T: "rf X \<union> co X \<union> fr X \<subseteq> T"
    by (auto simp: sc_order_def)
  have "SO \<subseteq> T"
  proof
    fix p assume "p \<in> SO"
    with SO obtain a b c where p: "p = (a, c)" and ab: "(a, b) \<in> opt X (co X)" and bc: "(b, c) \<in> rf X"
      by blast
    from ab have "(a, b) \<in> co X \<or> a = b"
      by (auto simp: opt_def)
    with p bc show "p \<in> T" using com_T tr unfolding trans_def by blast
  qed
  with po_T have "(po X \<union> SO)\<^sup>+ \<subseteq> T"
    using trancl_subset_mono[of "po X \<union> SO" T] trancl_id[OF tr] by simp
  with H_so have H_T: "H \<subseteq> T" by blast
  have fin_S: "finite (tag X ''A'' \<inter> tag X ''sc'')"
    using fin by (simp add: atomics_def)
  obtain R where R: "R \<in> total_orders (tag X ''A'' \<inter> tag X ''sc'')" and TR: "acyclic (T \<union> R)"
    using witness_order_extending[OF fin_S acy tr] by blast
  have "R \<inter> conv H = {}"
  proof (rule ccontr)
    assume "R \<inter> conv H \<noteq> {}"
    then obtain a b where "(a, b) \<in> R" "(b, a) \<in> H"
      by (auto simp: conv_def)
    with H_T have "(a, b) \<in> R" "(b, a) \<in> T"
      by auto
    then have "(a, a) \<in> (T \<union> R)\<^sup>+"
      by (meson UnI1 UnI2 r_into_trancl' trancl_into_trancl)
    with TR show False unfolding acyclic_def by blast
  qed
  moreover have "acyclic ((rf X \<union> co X \<union> fr X) \<union> (((po X \<union> R) \<union> H) \<inter> loc X))"
    by (rule acyclic_subset[OF TR]) (use com_T po_T H_T in blast)
  moreover have "acyclic (((data X \<union> ctrl X) \<union> addr X) \<union> rf X)"
    by (rule acyclic_subset[OF acy]) (use deps po_T com_T in \<open>auto simp: addr_def\<close>)
  moreover have "acyclic H"
    using acyclic_subset[OF acy H_T] .
  moreover have "rmw X \<inter> (fr X O co X) = {}"
    using sc by (simp add: sc_consistent_def atomicity_violation_def)
  ultimately show ?thesis
    using R by (auto simp: Let_def)
qed

text \<open>The model lattice ([HRFR15] App. C: the HRF-relaxed models allow a
  superset of the executions of the earlier models; hrf's property tests:
  every SC outcome of a race-free test is among the weaker model's): every
  SC execution is HRF-direct-relaxed-consistent, racy or not, whatever its
  atomics' orders.\<close>
theorem sc_hrf_direct_relaxed_consistent:
  assumes fin: "finite (atomics X)" and deps: "data X \<union> ctrl X \<subseteq> po X"
    and sc: "sc_consistent X"
  shows "hrf_direct_relaxed_consistent X"
  unfolding hrf_direct_relaxed_consistent_def hrf_direct_relaxed_no_dependency_cycle_def
    hrf_direct_relaxed_hhb_acyclic_def hrf_direct_relaxed_rmw_atomicity_def
proof (rule relaxed_export_of_sc[OF fin deps sc, where SO = "hrf_direct_relaxed_so X"])
  show "hrf_direct_relaxed_hhb X \<subseteq> (po X \<union> hrf_direct_relaxed_so X)\<^sup>+"
    unfolding hrf_direct_relaxed_hhb_def by (rule hhb_direct_within)
  show "hrf_direct_relaxed_so X \<subseteq> opt X (co X) O rf X"
    unfolding hrf_direct_relaxed_so_def by (rule subset_trans[OF so_within]) blast
qed

theorem sc_hrf_indirect_relaxed_consistent:
  assumes fin: "finite (atomics X)" and deps: "data X \<union> ctrl X \<subseteq> po X"
    and sc: "sc_consistent X"
  shows "hrf_indirect_relaxed_consistent X"
  unfolding hrf_indirect_relaxed_consistent_def hrf_indirect_relaxed_no_dependency_cycle_def
    hrf_indirect_relaxed_hhb_acyclic_def hrf_indirect_relaxed_rmw_atomicity_def
proof (rule relaxed_export_of_sc[OF fin deps sc, where SO = "hrf_indirect_relaxed_so X"])
  show "hrf_indirect_relaxed_hhb X \<subseteq> (po X \<union> hrf_indirect_relaxed_so X)\<^sup>+"
    unfolding hrf_indirect_relaxed_hhb_def by (rule subset_refl)
  show "hrf_indirect_relaxed_so X \<subseteq> opt X (co X) O rf X"
    unfolding hrf_indirect_relaxed_so_def by (rule subset_trans[OF so_within]) blast
qed

text \<open>With Theorem A.4: an execution free of heterogeneous races whose
  atomics are all seq_cst is HRF-direct-relaxed-consistent exactly when it
  is SC.\<close>
theorem hrf_direct_relaxed_race_free_exactly_sc:
  assumes wf: "well_formed X" and fin: "finite (atomics X)" and deps: "data X \<union> ctrl X \<subseteq> po X"
    and only_sc: "atomics X \<subseteq> tag X ''sc''"
    and race_free: "hrf_direct_relaxed_heterogeneous_race X = {}"
  shows "hrf_direct_relaxed_consistent X \<longleftrightarrow> sc_consistent X"
  using sc_for_hrf_direct_relaxed[OF wf fin only_sc _ race_free] sc_hrf_direct_relaxed_consistent[OF fin deps]
  by blast

theorem hrf_indirect_relaxed_race_free_exactly_sc:
  assumes wf: "well_formed X" and fin: "finite (atomics X)" and deps: "data X \<union> ctrl X \<subseteq> po X"
    and only_sc: "atomics X \<subseteq> tag X ''sc''"
    and race_free: "hrf_indirect_relaxed_heterogeneous_race X = {}"
  shows "hrf_indirect_relaxed_consistent X \<longleftrightarrow> sc_consistent X"
  using sc_for_hrf_indirect_relaxed[OF wf fin only_sc _ race_free] sc_hrf_indirect_relaxed_consistent[OF fin deps]
  by blast

text \<open>Over a program's candidate executions C: the SC ones are among the
  consistent ones of either HRF-relaxed model, so every SC outcome is one of
  the model's outcomes.\<close>
theorem sc_executions_within_hrf_relaxed:
  assumes "\<forall>X \<in> C. finite (atomics X) \<and> data X \<union> ctrl X \<subseteq> po X"
  shows "{X \<in> C. sc_consistent X} \<subseteq> {X \<in> C. hrf_direct_relaxed_consistent X}"
    and "{X \<in> C. sc_consistent X} \<subseteq> {X \<in> C. hrf_indirect_relaxed_consistent X}"
  using assms sc_hrf_direct_relaxed_consistent sc_hrf_indirect_relaxed_consistent by blast+

section \<open>HRF-direct-relaxed races are HRF-indirect-relaxed races\<close>

text \<open>[HRFR15] sec. 4.6: HRF-indirect-relaxed is HRF-direct-relaxed with a
  transitive happens-before. The two exports share their synchronisation
  and their conflicts; hhb.dr lies within hhb.ir.\<close>
lemma hrf_relaxed_so_same: "hrf_direct_relaxed_so X = hrf_indirect_relaxed_so X"
  by (simp only: hrf_direct_relaxed_so_def hrf_indirect_relaxed_so_def hrf_direct_relaxed_n51_def
      hrf_direct_relaxed_n50_def hrf_indirect_relaxed_n51_def hrf_direct_relaxed_n49_def hrf_indirect_relaxed_n49_def)

lemma hhb_dr_in_hhb_ir: "hrf_direct_relaxed_hhb X \<subseteq> hrf_indirect_relaxed_hhb X"
  unfolding hrf_direct_relaxed_hhb_def hrf_indirect_relaxed_hhb_def hrf_relaxed_so_same
  by (rule hhb_direct_within)

theorem hrf_direct_relaxed_race_free_indirect_relaxed_race_free:
  assumes "hrf_direct_relaxed_heterogeneous_race X = {}"
  shows "hrf_indirect_relaxed_heterogeneous_race X = {}"
proof -
  have same: "hrf_direct_relaxed_n113 X = hrf_indirect_relaxed_n87 X"
    "hrf_direct_relaxed_n115 X = hrf_indirect_relaxed_n89 X"
    "hrf_direct_relaxed_n51 X = hrf_indirect_relaxed_n51 X"
    by (simp_all only: hrf_direct_relaxed_n113_def hrf_indirect_relaxed_n87_def hrf_direct_relaxed_n104_def
        hrf_indirect_relaxed_n78_def hrf_direct_relaxed_n115_def hrf_indirect_relaxed_n89_def
        hrf_direct_relaxed_n51_def hrf_direct_relaxed_n50_def hrf_indirect_relaxed_n51_def
        hrf_direct_relaxed_n49_def hrf_indirect_relaxed_n49_def)
  have "hrf_indirect_relaxed_heterogeneous_race X \<subseteq> hrf_direct_relaxed_heterogeneous_race X"
    unfolding hrf_indirect_relaxed_heterogeneous_race_def hrf_direct_relaxed_heterogeneous_race_def same
    using hhb_dr_in_hhb_ir[of X] by (auto simp: conv_def)
  with assms show ?thesis by blast
qed

end
