(* hrf base theory: the general claims of [HRF14] and [HRFR15] about
   heterogeneous-race-free programs, proved for all executions over the
   definitions of Hrf_Execution and Hrf_Models (the ones every exported
   test theory uses). Written by hand; docs/isabelle.md sets each statement
   beside the paper's wording. *)
theory Hrf_Theorems
  imports Hrf_Models
begin

section \<open>Well-formed executions\<close>

text \<open>What the theorems need of a candidate execution, all of which hrf's
  core guarantees of the executions it reports: reads and writes are
  disjoint accesses (an RMW is a read and a write event, paired by rmw);
  the initial writes are writes; reads-from goes from a write to a read of
  the same location that is not an initial write; coherence steps go
  between writes of one location and never into an initial write (the
  initial write is coherence-first); program order steps stay among thread
  events; and every access of a thread is atomic or ordinary. The initial
  writes are neither: they are no access of the program (hrf's core tags
  them IW alone, and no race involves them, as [HRF14]'s conflicts are
  between the program's accesses), so that the definition holds of the
  executions hrf exports.\<close>
definition well_formed :: "execution \<Rightarrow> bool" where
  "well_formed X \<longleftrightarrow>
     reads X \<inter> writes X = {}
   \<and> reads X \<union> writes X \<subseteq> accesses X
   \<and> init_writes X \<subseteq> writes X
   \<and> accesses X - init_writes X \<subseteq> atomics X \<union> ordinary X
   \<and> rf X \<subseteq> (writes X \<times> reads X) \<inter> loc X
   \<and> co_imm X \<subseteq> (writes X \<times> (writes X - init_writes X)) \<inter> loc X
   \<and> po_imm X \<subseteq> thread_events X \<times> thread_events X"

text \<open>Communication: reads-from, coherence and from-reads.\<close>
definition com :: "execution \<Rightarrow> event rel" where
  "com X = rf X \<union> co X \<union> fr X"

lemma sc_order_is_po_com: "sc_order X = po X \<union> com X"
  by (auto simp: sc_order_def com_def)

section \<open>Facts about well-formed executions\<close>

lemma loc_trans: "trans (loc X)"
  unfolding trans_def loc_def pairs_where_def by (auto; metis)

lemma loc_sym: "(a, b) \<in> loc X \<Longrightarrow> (b, a) \<in> loc X"
  unfolding loc_def pairs_where_def by (auto; metis)

lemma loc_events: "(a, b) \<in> loc X \<Longrightarrow> a \<in> events X \<and> b \<in> events X"
  by (auto simp: loc_def pairs_where_def)

lemma trancl_within:
  assumes r: "r \<subseteq> A \<times> B"
  shows "r\<^sup>+ \<subseteq> A \<times> B"
proof
  fix p assume "p \<in> r\<^sup>+"
  then obtain a b where p: "p = (a, b)" "(a, b) \<in> r\<^sup>+" by (cases p) auto
  then have "a \<in> Domain (r\<^sup>+)" "b \<in> Range (r\<^sup>+)" by blast+
  then have "a \<in> Domain r" "b \<in> Range r" by (simp_all add: trancl_domain trancl_range)
  with r p show "p \<in> A \<times> B" by blast
qed

lemma po_thread: "well_formed X \<Longrightarrow> po X \<subseteq> thread_events X \<times> thread_events X"
  unfolding po_def well_formed_def using trancl_within[of "po_imm X"] by presburger

lemma co_shape: "well_formed X \<Longrightarrow> co X \<subseteq> (writes X \<times> (writes X - init_writes X)) \<inter> loc X"
proof -
  assume wf: "well_formed X"
  have step: "co_imm X \<subseteq> (writes X \<times> (writes X - init_writes X)) \<inter> loc X"
    using wf by (simp add: well_formed_def)
  have "co X \<subseteq> writes X \<times> (writes X - init_writes X)"
    unfolding co_def using step trancl_within[of "co_imm X"] by (meson inf.boundedE)
  moreover have "co X \<subseteq> loc X"
    unfolding co_def using step trancl_mono trans_trancl[of "loc X"] loc_trans[of X]
    by (metis (no_types, lifting) inf.boundedE subsetI trancl_id)
  ultimately show ?thesis by blast
qed

lemma rf_shape: "well_formed X \<Longrightarrow> rf X \<subseteq> (writes X \<times> (reads X - init_writes X)) \<inter> loc X"
  unfolding well_formed_def by blast

lemma fr_shape: "well_formed X \<Longrightarrow> fr X \<subseteq> (reads X \<times> (writes X - init_writes X)) \<inter> loc X"
proof
  fix p assume wf: "well_formed X" and p: "p \<in> fr X"
  then obtain r w v where "p = (r, v)" "(w, r) \<in> rf X" "(w, v) \<in> co X"
    by (auto simp: fr_def conv_def)
  moreover note rf_shape[OF wf] co_shape[OF wf]
  ultimately show "p \<in> (reads X \<times> (writes X - init_writes X)) \<inter> loc X"
    using loc_trans[of X] loc_sym[of w r X] unfolding trans_def by blast
qed

text \<open>Every communication edge goes between accesses of one location, into
  a thread event (never into an initial write).\<close>
lemma com_shape:
  "well_formed X \<Longrightarrow> com X \<subseteq> loc X \<inter> (UNIV \<times> (thread_events X))"
proof
  fix p assume wf: "well_formed X" and p: "p \<in> com X"
  obtain a b where ab: "p = (a, b)" by (cases p)
  have init_w: "init_writes X \<subseteq> writes X" and rw: "reads X \<inter> writes X = {}"
    using wf by (auto simp: well_formed_def)
  have "(a, b) \<in> loc X" and "b \<notin> init_writes X"
    using p ab rf_shape[OF wf] co_shape[OF wf] fr_shape[OF wf] init_w rw
    unfolding com_def by blast+
  moreover have "b \<in> events X"
    using loc_events calculation(1) by blast
  ultimately show "p \<in> loc X \<inter> (UNIV \<times> thread_events X)"
    using ab by (auto simp: thread_events_def)
qed

text \<open>Two different thread events that communicate conflict ([HRF14]
  "Conflict Definitions"): one location, at least one a write.\<close>
lemma com_conflict:
  assumes wf: "well_formed X" and p: "(a, b) \<in> com X" and ne: "a \<noteq> b"
    and a: "a \<in> thread_events X"
  shows "(a, b) \<in> conflict X"
proof -
  have acc: "reads X \<union> writes X \<subseteq> accesses X"
    using wf by (simp add: well_formed_def)
  have b: "b \<in> thread_events X" and l: "(a, b) \<in> loc X"
    using com_shape[OF wf] p by blast+
  have "(a, b) \<in> (writes X \<times> accesses X) \<union> (accesses X \<times> writes X)"
    using p rf_shape[OF wf] co_shape[OF wf] fr_shape[OF wf] acc unfolding com_def by blast
  with a b l ne acc show ?thesis
    by (auto simp: conflict_def id_r_def)
qed

section \<open>A cycle never passes an event nothing enters\<close>

lemma trancl_avoiding_sources:
  assumes none_in: "\<forall>x y. (x, y) \<in> r \<longrightarrow> y \<notin> I"
    and p: "(x, y) \<in> r\<^sup>+" and x: "x \<notin> I"
  shows "(x, y) \<in> (r \<inter> ((UNIV - I) \<times> UNIV))\<^sup>+"
  using p x
proof (induction rule: trancl_induct)
  case (base y)
  then show ?case by blast
next
  case (step y z)
  then have "(x, y) \<in> (r \<inter> ((UNIV - I) \<times> UNIV))\<^sup>+" by blast
  moreover have "y \<notin> I"
    using step.hyps(1) none_in by (metis tranclE)
  ultimately show ?case
    using step.hyps(2) by (meson DiffI IntI SigmaI UNIV_I trancl.trancl_into_trancl)
qed

lemma acyclic_avoiding_sources:
  assumes none_in: "\<forall>x y. (x, y) \<in> r \<longrightarrow> y \<notin> I"
    and rest: "acyclic (r \<inter> ((UNIV - I) \<times> UNIV))"
  shows "acyclic r"
  unfolding acyclic_def
proof
  fix x
  show "(x, x) \<notin> r\<^sup>+"
  proof
    assume c: "(x, x) \<in> r\<^sup>+"
    then have "x \<notin> I"
      using none_in by (metis tranclE)
    with c have "(x, x) \<in> (r \<inter> ((UNIV - I) \<times> UNIV))\<^sup>+"
      using trancl_avoiding_sources[OF none_in] by blast
    with rest show False
      unfolding acyclic_def by blast
  qed
qed

section \<open>DRF-SC: race-free executions coherent with a happens-before are SC\<close>

text \<open>The argument of [HRFR15] App. A (Lemmas A.1-A.3, Theorem A.4), for
  any happens-before hb that contains program order. The execution is
  coherent with hb: per location, hb and communication make no cycle
  ("coh is consistent with hhb"). Every conflicting pair of thread events is
  either ordered by hb one way or the other (no race), or one of the pairs
  a model lets synchronise without hb (the same-scope atomics of HRF),
  whose communication lies in an order sco (the total order of the seq_cst
  atomics) that makes no cycle with hb. Then the execution is SC: po and
  communication make no cycle. A communication edge between a race-free
  pair goes the way hb goes (the other way would close a cycle with
  coherence: Lemmas A.1 and A.2), one between synchronising atomics lies in
  sco (Lemma A.3), and a cycle of po and communication would be one of hb
  and sco (Theorem A.4). Initial writes are not thread events and nothing
  enters them, so no cycle passes them.\<close>
theorem drf_sc:
  fixes hb sco sync :: "event rel"
  assumes wf: "well_formed X"
    and po_hb: "po X \<subseteq> hb"
    and coherent: "acyclic ((hb \<inter> loc X) \<union> com X)"
    and race_free: "conflict X - sync \<subseteq> hb \<union> hb\<inverse>"
    and sync_sco: "com X \<inter> sync \<subseteq> sco"
    and hb_sco: "acyclic (hb \<union> sco)"
  shows "acyclic (sc_order X)"
proof -
  have com_dir: "(a, b) \<in> hb \<union> sco" if ab: "(a, b) \<in> com X" and a: "a \<in> thread_events X" for a b
  proof (cases "a = b")
    case True
    with ab have "(a, a) \<in> ((hb \<inter> loc X) \<union> com X)\<^sup>+" by blast
    with coherent show ?thesis unfolding acyclic_def by blast
  next
    case False
    have conf: "(a, b) \<in> conflict X"
      using com_conflict[OF wf ab False a] .
    show ?thesis
    proof (cases "(a, b) \<in> sync")
      case True
      with ab sync_sco show ?thesis by blast
    next
      case False
      with conf race_free have "(a, b) \<in> hb \<or> (b, a) \<in> hb" by blast
      moreover have "(b, a) \<notin> hb"
      proof
        assume ba: "(b, a) \<in> hb"
        have "(a, b) \<in> loc X" using com_shape[OF wf] ab by blast
        then have "(b, a) \<in> hb \<inter> loc X" using ba loc_sym by blast
        with ab have "(a, a) \<in> ((hb \<inter> loc X) \<union> com X)\<^sup>+"
          by (meson UnI1 UnI2 trancl.simps)
        with coherent show False unfolding acyclic_def by blast
      qed
      ultimately show ?thesis by blast
    qed
  qed
  have into_thread: "\<forall>x y. (x, y) \<in> sc_order X \<longrightarrow> y \<notin> init_writes X"
    using po_thread[OF wf] com_shape[OF wf]
    unfolding sc_order_is_po_com thread_events_def by blast
  have "sc_order X \<inter> ((UNIV - init_writes X) \<times> UNIV) \<subseteq> hb \<union> sco"
  proof
    fix p assume p: "p \<in> sc_order X \<inter> ((UNIV - init_writes X) \<times> UNIV)"
    obtain a b where ab: "p = (a, b)" by (cases p)
    show "p \<in> hb \<union> sco"
    proof (cases "p \<in> po X")
      case True
      with po_hb show ?thesis by blast
    next
      case False
      with p ab have c: "(a, b) \<in> com X" and "a \<notin> init_writes X"
        unfolding sc_order_is_po_com by blast+
      moreover have "a \<in> events X"
        using com_shape[OF wf] c loc_events by blast
      ultimately have "a \<in> thread_events X"
        by (simp add: thread_events_def)
      with c com_dir ab show ?thesis by blast
    qed
  qed
  then have "acyclic (sc_order X \<inter> ((UNIV - init_writes X) \<times> UNIV))"
    using hb_sco acyclic_subset by blast
  then show ?thesis
    using acyclic_avoiding_sources[OF into_thread] by blast
qed

section \<open>SC for HRF ([HRF14] sec. 3-4, [HRFR15] Theorem A.4)\<close>

text \<open>The conflicting pairs HRF lets synchronise without happens-before:
  two atomics of the same scope instance. Every other conflict is an
  ordinary conflict or a synchronization conflict, and a race where hhb
  does not order it.\<close>
definition same_scope_atomics :: "execution \<Rightarrow> event rel" where
  "same_scope_atomics X = (atomics X \<times> atomics X) \<inter> same_scope X"

lemma heterogeneous_race_free_ordered:
  fixes hhb :: "event rel"
  assumes wf: "well_formed X" and free: "heterogeneous_race X hhb = {}"
  shows "conflict X - same_scope_atomics X \<subseteq> hhb \<union> hhb\<inverse>"
proof
  fix p assume p: "p \<in> conflict X - same_scope_atomics X"
  have acc: "accesses X - init_writes X \<subseteq> atomics X \<union> ordinary X"
    using wf by (simp add: well_formed_def)
  have in_acc: "conflict X \<subseteq> (accesses X - init_writes X) \<times> (accesses X - init_writes X)"
    using wf by (auto simp: conflict_def well_formed_def thread_events_def)
  have "p \<in> ordinary_conflict X \<union> synchronization_conflict X"
    using p acc in_acc
    by (auto simp: ordinary_conflict_def synchronization_conflict_def same_scope_atomics_def)
  with free show "p \<in> hhb \<union> hhb\<inverse>"
    by (auto simp: heterogeneous_race_def conv_is_converse)
qed

text \<open>An execution of a heterogeneous-race-free program under HRF-direct
  whose accesses are coherent with hhb.d, and whose same-scope atomics
  communicate along an order of them that makes no cycle with hhb.d (the
  seq_cst atomics' total order), is sequentially consistent: [HRFR15]
  Theorem A.4, for HRF-direct and any model weaker than SC that gives
  these guarantees (RMW atomicity is one of them).\<close>
theorem sc_for_hrf_direct:
  fixes sco :: "event rel"
  assumes "well_formed X"
    and "hrf_direct_race X = {}"
    and "acyclic ((hhb_d X \<inter> loc X) \<union> com X)"
    and "com X \<inter> same_scope_atomics X \<subseteq> sco"
    and "acyclic (hhb_d X \<union> sco)"
    and "atomicity_violation X = {}"
  shows "sc_consistent X"
proof -
  have "po X \<subseteq> hhb_d X" by (auto simp: hhb_d_def)
  moreover have "conflict X - same_scope_atomics X \<subseteq> hhb_d X \<union> (hhb_d X)\<inverse>"
    using heterogeneous_race_free_ordered assms(1,2) unfolding hrf_direct_race_def by blast
  ultimately have "acyclic (sc_order X)"
    using drf_sc[OF assms(1)] assms(3-5) by blast
  with assms(6) show ?thesis by (simp add: sc_consistent_def)
qed

theorem sc_for_hrf_indirect:
  fixes sco :: "event rel"
  assumes "well_formed X"
    and "hrf_indirect_race X = {}"
    and "acyclic ((hhb_i X \<inter> loc X) \<union> com X)"
    and "com X \<inter> same_scope_atomics X \<subseteq> sco"
    and "acyclic (hhb_i X \<union> sco)"
    and "atomicity_violation X = {}"
  shows "sc_consistent X"
proof -
  have "po X \<subseteq> hhb_i X" by (auto simp: hhb_i_def)
  moreover have "conflict X - same_scope_atomics X \<subseteq> hhb_i X \<union> (hhb_i X)\<inverse>"
    using heterogeneous_race_free_ordered assms(1,2) unfolding hrf_indirect_race_def by blast
  ultimately have "acyclic (sc_order X)"
    using drf_sc[OF assms(1)] assms(3-5) by blast
  with assms(6) show ?thesis by (simp add: sc_consistent_def)
qed

text \<open>hrf's HRF-direct and HRF-indirect judge SC candidate executions
  ([HRF14] defines them as SC for HRF programs): a consistent execution is
  SC by definition, and the theorems above are what carries weight. The
  program-level statement: when no consistent execution of a program (its
  candidate executions C) is racy, every consistent one is SC.\<close>
theorem sc_for_hrf_direct_program:
  "(\<forall>X \<in> C. hrf_direct_consistent X \<longrightarrow> hrf_direct_race X = {})
   \<Longrightarrow> (\<forall>X \<in> C. hrf_direct_consistent X \<longrightarrow> sc_consistent X)"
  by (simp add: hrf_direct_consistent_def)

theorem sc_for_hrf_indirect_program:
  "(\<forall>X \<in> C. hrf_indirect_consistent X \<longrightarrow> hrf_indirect_race X = {})
   \<Longrightarrow> (\<forall>X \<in> C. hrf_indirect_consistent X \<longrightarrow> sc_consistent X)"
  by (simp add: hrf_indirect_consistent_def)

section \<open>Model inclusions\<close>

text \<open>[HRF14] sec. 4.1: a race under HRF-indirect is a race under
  HRF-direct (hhb.d within hhb.i), so an execution race-free under
  HRF-direct is race-free under HRF-indirect.\<close>
lemma heterogeneous_race_anti_mono:
  fixes hhb hhb' :: "event rel"
  shows "hhb \<subseteq> hhb' \<Longrightarrow> heterogeneous_race X hhb' \<subseteq> heterogeneous_race X hhb"
  by (auto simp: heterogeneous_race_def conv_def)

theorem hrf_direct_race_free_indirect_race_free:
  "hrf_direct_race X = {} \<Longrightarrow> hrf_indirect_race X = {}"
  using heterogeneous_race_anti_mono[OF hhb_d_in_hhb_i, of X X]
  unfolding hrf_direct_race_def hrf_indirect_race_def by blast

theorem hrf_indirect_race_within_direct:
  "hrf_indirect_race X \<subseteq> hrf_direct_race X"
  using heterogeneous_race_anti_mono[OF hhb_d_in_hhb_i, of X X]
  unfolding hrf_direct_race_def hrf_indirect_race_def by blast

end
