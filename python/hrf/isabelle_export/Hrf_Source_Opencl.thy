(* hrf base theory: OpenCL+RSP ([RSP15]'s source model, opencl-rsp as hrf
   exports it, Model_opencl_rsp) as a source model of Hrf_Simulation: a
   program race-free under it, with no non-atomic RMW, has each of its SC
   outcomes among the outcomes of its consistent candidates. The proof
   takes the SC run's candidate (Hrf_Source) and lets each read of a
   non-atomic location read instead its happens-before-latest write; that
   candidate is consistent, and it is the run's own unless the run has a
   read of a non-atomic location from a write not before it in
   happens-before, a data race of the new candidate. Written by hand,
   every proof complete. *)
theory Hrf_Source_Opencl
  imports Hrf_Source Model_opencl_rsp
begin

section \<open>Tags no source program carries\<close>

lemma enc_eq_iff [simp]: "enc a = enc b \<longleftrightarrow> a = b"
  using enc_inj by blast

lemma enc_image_iff [simp]: "enc e \<in> enc ` A \<longleftrightarrow> e \<in> A"
  by auto

text \<open>The names of the tags a source event may carry: fixed ones, memory
  orders and scopes.\<close>
definition src_tag_names :: "string set" where
  "src_tag_names = {''R'', ''W'', ''M'', ''IW'', ''global'', ''nonatomicloc'', ''A'', ''NA'', ''remote''}"

definition mo_names :: "string set" where
  "mo_names = {''acq'', ''rel'', ''acq_rel'', ''''}"

definition scope_names :: "string set" where
  "scope_names = {''NA'', ''wg'', ''dev'', ''all''}"

text \<open>The tags of fences, barriers, SC atomics, local memory, and the
  sub-group and work-item scopes, which no source event carries; and the
  scopes.\<close>
definition none_names :: "string set" where
  "none_names = {''entry'', ''exit'', ''F'', ''sc'', ''local'', ''sg'', ''wi''}"

definition scoped_names :: "string set" where
  "scoped_names = {''wi'', ''sg'', ''wg'', ''dev'', ''all''}"

lemma mo_tag_cases: "mo_tag c \<in> mo_names"
  by (cases c rule: mo_tag.cases) (auto simp: mo_names_def)

lemma scope_tag_cases: "scope_tag sc \<in> scope_names"
  by (cases sc) (auto simp: scope_tag_def scope_names_def)

text \<open>Which tags an event may carry.\<close>
lemma tags_cases:
  assumes "e \<in> src_tags P s"
  shows "s \<in> src_tag_names
    \<or> (\<exists>t i p. e = Acc t i p \<and> (s = scope_tag (op_scope (ins P t i)) \<or> s = mo_tag (ins P t i)))"
  using assms unfolding src_tags_def src_tag_names_def by (auto split: sev.splits if_splits)

text \<open>The names apart (evaluated: the simplifier compares strings slowly).\<close>
lemma names_apart:
  "\<forall>s \<in> none_names. s \<notin> src_tag_names \<and> s \<notin> mo_names \<and> s \<notin> scope_names"
  "\<forall>s \<in> scoped_names. s \<notin> src_tag_names"
  by eval+

lemma tags_none:
  assumes "s \<in> none_names"
  shows "src_tags P s = {}"
proof (rule equals0I)
  fix e assume e: "e \<in> src_tags P s"
  have s: "s \<notin> src_tag_names" "s \<notin> mo_names" "s \<notin> scope_names"
    using assms names_apart(1) by auto
  show False
    using tags_cases[OF e] s mo_tag_cases scope_tag_cases by metis
qed

lemma tags_global: "src_tags P ''global'' = Collect (is_ev P)"
  by (auto simp: src_tags_def)

definition nal_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "nal_ev P e \<longleftrightarrow> (\<exists>x. sloc P e = Some x \<and> x \<in> nal_locs P)"

lemma tags_nal: "src_tags P ''nonatomicloc'' = {e. is_ev P e \<and> nal_ev P e}"
  by (auto simp: src_tags_def nal_ev_def)

text \<open>An event with a scope is an access by an atomic operation.\<close>
lemma tags_scoped:
  assumes "e \<in> src_tags P s" "s \<in> scoped_names"
  shows "\<exists>t i p. e = Acc t i p \<and> op_scope (ins P t i) \<noteq> NonAtomic"
proof -
  have "s \<notin> src_tag_names" using assms(2) names_apart(2) by auto
  then show ?thesis using assms(1) unfolding src_tags_def src_tag_names_def by (auto split: sev.splits)
qed

lemma nal_scope:
  assumes "nal_ev P (Acc t i p)" "acc P t i p"
  shows "op_scope (ins P t i) = NonAtomic"
proof -
  obtain x where "addr_of (ins P t i) = Some x" "x \<in> nal_locs P"
    using assms(1) by (auto simp: nal_ev_def)
  then show ?thesis using assms(2) by (auto simp: nal_locs_def acc_def)
qed

lemma nal_not_scoped:
  assumes "nal_ev P e" "is_ev P e" "e \<in> src_tags P s" "s \<in> scoped_names"
  shows False
  using tags_scoped[OF assms(3,4)] nal_scope assms(1,2) by fastforce

lemma nal_same: "sloc P a = sloc P b \<Longrightarrow> nal_ev P a = nal_ev P b"
  by (simp add: nal_ev_def)

text \<open>A program with an RMW of no scope: OpenCL has none (its RMWs take
  atomic types).\<close>
definition na_rmw :: "src_program \<Rightarrow> bool" where
  "na_rmw P \<longleftrightarrow> (\<exists>t \<in> src_threads P. \<exists>i < length (src_code P t). \<exists>rm r x.
     ins P t i = Op (FetchInc NonAtomic rm) r x)"

lemma atomic_rmw:
  assumes "\<not> na_rmw P" "acc P t i True"
  shows "\<not> nal_ev P (Acc t i True)"
proof
  assume n: "nal_ev P (Acc t i True)"
  obtain sc rm r x where c: "ins P t i = Op (FetchInc sc rm) r x"
    using assms(2) wr_part[of "ins P t i"] rd_part[of "ins P t i" True] by (auto simp: acc_def)
  have "sc = NonAtomic" using nal_scope[OF n assms(2)] c by simp
  then show False using assms c by (auto simp: na_rmw_def acc_def)
qed

section \<open>The model's relations that a change of reads-from keeps\<close>

lemma upd_basic [simp]:
  "tag (X\<lparr>rf := R\<rparr>) s = tag X s"
  "po (X\<lparr>rf := R\<rparr>) = po X"
  "co (X\<lparr>rf := R\<rparr>) = co X"
  "opt (X\<lparr>rf := R\<rparr>) r = opt X r"
  "universal (X\<lparr>rf := R\<rparr>) = universal X"
  "same_attr (X\<lparr>rf := R\<rparr>) a = same_attr X a"
  "loc (X\<lparr>rf := R\<rparr>) = loc X"
  "id_r (X\<lparr>rf := R\<rparr>) = id_r X"
  by (simp_all add: tag_def po_def co_def opt_def universal_def
      same_attr_def loc_def id_r_def pairs_where_def)

lemma upd_same_thread_attr [simp]: "same_thread_attr (X\<lparr>rf := R\<rparr>) a = same_thread_attr X a"
proof -
  have "thread_attr (X\<lparr>rf := R\<rparr>) = thread_attr X" "thread_of (X\<lparr>rf := R\<rparr>) = thread_of X"
    "events (X\<lparr>rf := R\<rparr>) = events X"
    by simp_all
  then show ?thesis unfolding same_thread_attr_def pairs_where_def by (simp only:)
qed

lemma upd_nodes [simp]:
  "opencl_rsp_n9 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n9 X"
  "opencl_rsp_n15 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n15 X"
  "opencl_rsp_n21 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n21 X"
  "opencl_rsp_n40 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n40 X"
  "opencl_rsp_n49 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n49 X"
  "opencl_rsp_n52 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n52 X"
  "opencl_rsp_n58 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n58 X"
  "opencl_rsp_n91 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n91 X"
  "opencl_rsp_n90 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n90 X"
  "opencl_rsp_n100 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n100 X"
  "opencl_rsp_n101 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n101 X"
  "opencl_rsp_n108 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n108 X"
  "opencl_rsp_n125 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n125 X"
  "opencl_rsp_n126 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n126 X"
  "opencl_rsp_n132 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n132 X"
  "opencl_rsp_n134 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n134 X"
  by (simp_all add: opencl_rsp_n9_def opencl_rsp_n12_def opencl_rsp_n15_def opencl_rsp_n21_def
      opencl_rsp_n26_def opencl_rsp_n28_def opencl_rsp_n35_def opencl_rsp_n40_def opencl_rsp_n49_def
      opencl_rsp_n52_def opencl_rsp_n58_def opencl_rsp_n82_def opencl_rsp_n83_def opencl_rsp_n86_def
      opencl_rsp_n90_def opencl_rsp_n91_def opencl_rsp_n99_def opencl_rsp_n100_def opencl_rsp_n101_def
      opencl_rsp_n103_def opencl_rsp_n106_def opencl_rsp_n108_def opencl_rsp_n125_def
      opencl_rsp_n126_def opencl_rsp_n132_def opencl_rsp_n134_def)

text \<open>Global happens-before reads reads-from only into atomic reads (through
  synchronises-with), so a new reads-from that agrees there keeps it.\<close>
lemma upd_ghb:
  assumes "R O opencl_rsp_n49 X = rf X O opencl_rsp_n49 X"
  shows "opencl_rsp_n137 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n137 X"
proof -
  have A: "\<And>S. R O (opencl_rsp_n49 X O S) = rf X O (opencl_rsp_n49 X O S)"
    using assms by (simp add: O_assoc[symmetric])
  have "opencl_rsp_n92 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n92 X"
    "opencl_rsp_n122 (X\<lparr>rf := R\<rparr>) = opencl_rsp_n122 X"
    unfolding opencl_rsp_n92_def opencl_rsp_n122_def by (simp_all add: O_assoc A)
  then show ?thesis
    by (simp add: opencl_rsp_n137_def opencl_rsp_n124_def)
qed

section \<open>The relations of a source candidate\<close>

text \<open>For every reads-from f and coherence cs:\<close>

lemma tag_XS: "tag (src_exec L P f cs) s = enc ` src_tags P s"
  by (simp add: tag_def src_exec_def)

lemma events_XS: "events (src_exec L P f cs) = enc ` Collect (is_ev P)"
  by (simp add: src_exec_def)

lemma rf_XS: "(a, b) \<in> rf (src_exec L P f cs) \<longleftrightarrow> (\<exists>r. is_rd P r \<and> a = enc (f r) \<and> b = enc r)"
  by (auto simp: src_exec_def lift_def)

lemma loc_XS: "(enc a, enc b) \<in> loc (src_exec L P f cs) \<longleftrightarrow>
    is_ev P a \<and> is_ev P b \<and> sloc P a \<noteq> None \<and> sloc P a = sloc P b"
  by (auto simp: loc_def pairs_where_def src_exec_def)

lemma same_wi_XS: "(enc a, enc b) \<in> same_thread_attr (src_exec L P f cs) ''wi'' \<Longrightarrow> sthread a = sthread b"
  by (auto simp: same_thread_attr_def pairs_where_def src_exec_def split: option.splits)

lemma tag_XS_none [simp]:
  "tag (src_exec L P f cs) ''entry'' = {}" "tag (src_exec L P f cs) ''exit'' = {}"
  "tag (src_exec L P f cs) ''F'' = {}" "tag (src_exec L P f cs) ''sc'' = {}"
  "tag (src_exec L P f cs) ''local'' = {}" "tag (src_exec L P f cs) ''sg'' = {}"
  "tag (src_exec L P f cs) ''wi'' = {}"
  by (simp_all add: tag_XS tags_none none_names_def)

lemma XS_n15: "opencl_rsp_n15 (src_exec L P f cs) = Id_on (events (src_exec L P f cs))"
  and XS_n52: "opencl_rsp_n52 (src_exec L P f cs) = Id_on (events (src_exec L P f cs))"
  by (simp_all add: opencl_rsp_n15_def opencl_rsp_n52_def opencl_rsp_n12_def opt_def tag_XS_none)

lemma XS_n40: "opencl_rsp_n40 (src_exec L P f cs) \<subseteq> Id_on (events (src_exec L P f cs)) \<union> co (src_exec L P f cs)"
  by (auto simp: opencl_rsp_n40_def opencl_rsp_n28_def opt_def)

lemma XS_n101: "opencl_rsp_n101 (src_exec L P f cs) = {}"
  and XS_n108: "opencl_rsp_n108 (src_exec L P f cs) = {}"
  and XS_n125: "opencl_rsp_n125 (src_exec L P f cs) = {}"
  and XS_n126: "opencl_rsp_n126 (src_exec L P f cs) = {}"
  and XS_n122: "opencl_rsp_n122 (src_exec L P f cs) = {}"
  and XS_n103: "opencl_rsp_n103 (src_exec L P f cs) = {}"
  by (simp_all add: opencl_rsp_n101_def opencl_rsp_n99_def opencl_rsp_n108_def opencl_rsp_n103_def
      opencl_rsp_n106_def opencl_rsp_n125_def opencl_rsp_n126_def opencl_rsp_n122_def tag_XS_none)

text \<open>Local happens-before is empty: the machine's memory is global.\<close>
lemma XS_lhb: "opencl_rsp_n140 (src_exec L P f cs) = {}"
  by (simp add: opencl_rsp_n140_def opencl_rsp_n129_def XS_n125 XS_n126 XS_n122 XS_n108)

lemma XS_n92: "opencl_rsp_n92 (src_exec L P f cs) \<subseteq> (Id_on (events (src_exec L P f cs)) \<union> co (src_exec L P f cs)) O rf (src_exec L P f cs)"
  using XS_n40[of L P f cs]
  unfolding opencl_rsp_n92_def XS_n15 XS_n52 opencl_rsp_n21_def opencl_rsp_n49_def by blast

lemma XS_ghb_gen: "opencl_rsp_n137 (src_exec L P f cs) = ((opencl_rsp_n100 (src_exec L P f cs) \<inter> opencl_rsp_n134 (src_exec L P f cs)) \<union> opencl_rsp_n92 (src_exec L P f cs))\<^sup>+"
  by (simp add: opencl_rsp_n137_def opencl_rsp_n124_def XS_n101 XS_n108 XS_n122)

text \<open>Every race needs an access without a scope: scope inclusion relates
  only pairs of which one side has a scope.\<close>
definition scoped :: "execution \<Rightarrow> event set" where
  "scoped X = tag X ''wi'' \<union> tag X ''sg'' \<union> tag X ''wg'' \<union> tag X ''dev'' \<union> tag X ''all''"

lemma incl_scoped:
  assumes "(a, b) \<in> opencl_rsp_n90 X"
  shows "a \<in> scoped X \<or> b \<in> scoped X"
proof -
  have n82: "c \<in> scoped X" if "(c, d) \<in> opencl_rsp_n82 X" for c d
    using that unfolding opencl_rsp_n82_def scoped_def by blast
  consider "(a, b) \<in> opencl_rsp_n82 X" | "(b, a) \<in> opencl_rsp_n82 X"
    | c where "(a, c) \<in> opencl_rsp_n86 X" "(c, b) \<in> opencl_rsp_n82 X"
    | c where "(a, c) \<in> opencl_rsp_n83 X" "(c, b) \<in> opencl_rsp_n86 X"
    using assms unfolding opencl_rsp_n90_def opencl_rsp_n83_def conv_is_converse by blast
  then show ?thesis
  proof cases
    case (3 c)
    then show ?thesis using n82 by (auto simp: opencl_rsp_n86_def)
  next
    case (4 c)
    then show ?thesis using n82 by (auto simp: opencl_rsp_n86_def opencl_rsp_n83_def conv_is_converse)
  qed (use n82 in blast)+
qed

lemma nal_unscoped: "nal_ev P e \<Longrightarrow> is_ev P e \<Longrightarrow> enc e \<notin> scoped (src_exec L P f cs)"
  using nal_not_scoped[of P e] by (auto simp: scoped_def tag_XS scoped_names_def)

section \<open>Values from any reads-from that goes forward in time\<close>

fun nv :: "src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> (sev \<Rightarrow> int) \<Rightarrow> sev \<Rightarrow> int" where
  "nv P f V (Init x) = src_init P x"
| "nv P f V (Acc t i True) = V (Acc t i False) + 1"
| "nv P f V (Acc t i False) = (if is_rd P (Acc t i False) then V (f (Acc t i False))
     else (case ins P t i of Op (Store sc rm) r x \<Rightarrow> tregs (src_code P t) (reads_val V t) i r | _ \<Rightarrow> 0))"

lemma tregs_cong: "(\<And>j. j < i \<Longrightarrow> rv j = ru j) \<Longrightarrow> tregs cs rv i = tregs cs ru i"
  by (induction i) auto

context sc_run
begin

text \<open>The values of the events up to time n, one time after another.\<close>
primrec vals :: "(sev \<Rightarrow> sev) \<Rightarrow> nat \<Rightarrow> sev \<Rightarrow> int" where
  "vals f 0 e = (case e of Init x \<Rightarrow> src_init P x | Acc t i p \<Rightarrow> 0)"
| "vals f (Suc n) e = (if stamp e = Suc n then nv P f (vals f n) e else vals f n e)"

definition vv :: "(sev \<Rightarrow> sev) \<Rightarrow> sev \<Rightarrow> int" where
  "vv f e = vals f (stamp e) e"

lemma vals_stable: "stamp e \<le> n \<Longrightarrow> vals f n e = vv f e"
proof (induction n)
  case 0
  then show ?case by (simp add: vv_def)
next
  case (Suc n)
  then show ?case by (cases "stamp e = Suc n") (auto simp: vv_def)
qed

lemma k_of_po: "j < i \<Longrightarrow> t \<in> src_threads P \<Longrightarrow> i < length (src_code P t) \<Longrightarrow> k_of t j < k_of t i"
  using evl_po[of t i T j] in_evl by (simp add: k_of_def)

theorem values_exist:
  assumes f: "\<And>r. is_rd P r \<Longrightarrow> stamp (f r) < stamp r"
  shows "values_ok P f (vv f)"
  unfolding values_ok_def
proof (intro conjI allI impI ballI)
  fix x show "vv f (Init x) = src_init P x" by (simp add: vv_def)
next
  fix r assume r: "is_rd P r"
  obtain t i x where ti: "r = Acc t i False" "acc P t i False" "rd (ins P t i) False"
    using rd_acc[OF r] by blast
  have st: "stamp r = Suc (2 * k_of t i)" using ti(1) by simp
  have "vv f r = nv P f (vals f (2 * k_of t i)) r"
    by (simp add: vv_def st)
  also have "\<dots> = vals f (2 * k_of t i) (f r)"
    using r ti(1) by simp
  also have "\<dots> = vv f (f r)"
    using f[OF r] st by (intro vals_stable) simp
  finally show "vv f r = vv f (f r)" .
next
  fix t i r x sc rm
  assume a: "acc P t i False" and c: "ins P t i = Op (Store sc rm) r x"
  have nr: "\<not> is_rd P (Acc t i False)" using c by simp
  have st: "stamp (Acc t i False) = Suc (2 * k_of t i)" by simp
  have ti: "t \<in> src_threads P" "i < length (src_code P t)" using a by (auto simp: acc_def)
  have "vv f (Acc t i False) = tregs (src_code P t) (reads_val (vals f (2 * k_of t i)) t) i r"
    using nr c by (simp add: vv_def)
  also have "\<dots> = tregs (src_code P t) (reads_val (vv f) t) i r"
  proof -
    have "tregs (src_code P t) (reads_val (vals f (2 * k_of t i)) t) i = tregs (src_code P t) (reads_val (vv f) t) i"
    proof (rule tregs_cong)
      fix j assume "j < i"
      then have "k_of t j < k_of t i" using k_of_po ti by blast
      then show "reads_val (vals f (2 * k_of t i)) t j = reads_val (vv f) t j"
        unfolding reads_val_def by (intro vals_stable) simp
    qed
    then show ?thesis by simp
  qed
  finally show "vv f (Acc t i False) = tregs (src_code P t) (reads_val (vv f) t) i r" .
next
  fix t i assume "acc P t i True"
  have "vv f (Acc t i True) = vals f (Suc (2 * k_of t i)) (Acc t i False) + 1"
    by (simp add: vv_def)
  also have "\<dots> = vv f (Acc t i False) + 1"
    by (subst vals_stable) simp_all
  finally show "vv f (Acc t i True) = vv f (Acc t i False) + 1" .
qed

end

section \<open>The run's candidate, its non-atomic reads moved to their
  happens-before-latest writes\<close>

locale ocl_run = sc_run +
  fixes L :: layout
begin

abbreviation X :: execution where "X \<equiv> src_exec L P rfw co_r"

text \<open>Global happens-before of the run's candidate ([BDW16] App. C, as
  Model_opencl_rsp defines it).\<close>
definition ghb :: "event rel" where
  "ghb = opencl_rsp_n137 X"

lemma tsn_enc [simp]: "tsn (enc e) = stamp e"
  by (simp add: tsn_def)

lemmas events_X = events_XS[of L P rfw co_r]

lemma init_first: "is_ev P (Init x) \<Longrightarrow> is_ev P (Acc t i p) \<Longrightarrow> (enc (Init x), enc (Acc t i p)) \<in> ghb"
proof -
  assume a: "is_ev P (Init x)" "is_ev P (Acc t i p)"
  have "enc (Acc t i p) \<notin> tag X ''IW''"
    by (auto simp: tag_XS tags_IW dest: enc_inj)
  then have "(enc (Init x), enc (Acc t i p)) \<in> opencl_rsp_n100 X \<inter> opencl_rsp_n134 X"
    using a by (auto simp: opencl_rsp_n100_def opencl_rsp_n134_def opencl_rsp_n132_def tag_XS tags_global
        tags_IW events_X)
  then show ?thesis unfolding ghb_def XS_ghb_gen by blast
qed

lemma po_ghb: "(a, b) \<in> po X \<Longrightarrow> (a, b) \<in> ghb"
proof -
  assume ab: "(a, b) \<in> po X"
  have "po_imm X \<subseteq> events X \<times> events X"
    by (auto simp: src_exec_def lift_def src_po_def)
  then have "po X \<subseteq> events X \<times> events X"
    unfolding po_def by (rule trancl_subset_Sigma)
  then have "a \<in> events X" "b \<in> events X" using ab by auto
  then have "(a, b) \<in> opencl_rsp_n100 X \<inter> opencl_rsp_n134 X"
    using ab by (auto simp: opencl_rsp_n100_def opencl_rsp_n134_def tag_XS tags_global events_X)
  then show ?thesis unfolding ghb_def XS_ghb_gen by blast
qed

lemma ghb_trans: "(a, b) \<in> ghb \<Longrightarrow> (b, c) \<in> ghb \<Longrightarrow> (a, c) \<in> ghb"
  unfolding ghb_def opencl_rsp_n137_def by (rule trancl_trans)

text \<open>Happens-before goes forward in time: each of its steps does.\<close>
lemma base_later: "(opencl_rsp_n100 X \<inter> opencl_rsp_n134 X) \<union> opencl_rsp_n92 X \<subseteq> later"
proof -
  have "opencl_rsp_n134 X \<inter> opencl_rsp_n100 X \<subseteq> later"
  proof
    fix p assume p: "p \<in> opencl_rsp_n134 X \<inter> opencl_rsp_n100 X"
    show "p \<in> later"
    proof (cases "p \<in> po X")
      case True
      then show ?thesis using po_later[of L] by blast
    next
      case False
      then obtain x e where "p = (enc (Init x), enc e)" "is_ev P e" "e \<notin> Init ` src_locs P"
        using p by (auto simp: opencl_rsp_n134_def opencl_rsp_n132_def tag_XS tags_IW events_X)
      then show ?thesis by (cases e) (auto simp: later_def)
    qed
  qed
  moreover have "opencl_rsp_n92 X \<subseteq> later"
  proof -
    have "(Id_on (events X) \<union> co X) O rf X \<subseteq> later"
    proof
      fix p assume "p \<in> (Id_on (events X) \<union> co X) O rf X"
      then obtain a b c where abc: "p = (a, c)" "(a, b) \<in> Id_on (events X) \<union> co X" "(b, c) \<in> rf X"
        by blast
      then have "(b, c) \<in> later" "a = b \<or> (a, b) \<in> later" using co_later[of L] rf_later[of L] by blast+
      then show "p \<in> later" using abc(1) by (auto simp: later_def)
    qed
    then show ?thesis using XS_n92 by blast
  qed
  ultimately show ?thesis by blast
qed

lemma ghb_later: "ghb \<subseteq> later"
  unfolding ghb_def XS_ghb_gen by (rule later_trancl[OF base_later])

text \<open>The writes a read may read under the axiom of visible side effects:
  its location's, before it in global happens-before.\<close>
definition cands :: "sev \<Rightarrow> sev set" where
  "cands r = {w. is_wr P w \<and> sloc P w = sloc P r \<and> (enc w, enc r) \<in> ghb}"

lemma cands_max:
  assumes r: "is_rd P r"
  shows "\<exists>w. w \<in> cands r \<and> (\<forall>w' \<in> cands r. stamp w' \<le> stamp w)"
proof -
  obtain t i x where ti: "r = Acc t i False" "acc P t i False" "addr_of (ins P t i) = Some x"
    using rd_acc[OF r] by blast
  have "Init x \<in> cands r"
    using init_first[of x t i False] ti ev_loc[OF ti(2,3)] by (simp add: cands_def)
  moreover have "finite (cands r)"
    using finite_events by (rule finite_subset[rotated]) (auto simp: cands_def intro: ev_of)
  ultimately have ne: "stamp ` cands r \<noteq> {}" and fi: "finite (stamp ` cands r)"
    by auto
  have m: "Max (stamp ` cands r) \<in> stamp ` cands r" using Max_in[OF fi ne] .
  have ge: "\<forall>w' \<in> cands r. stamp w' \<le> Max (stamp ` cands r)" using Max_ge[OF fi] by blast
  obtain w where "w \<in> cands r" "stamp w = Max (stamp ` cands r)" using m by auto
  then show ?thesis using ge by metis
qed

text \<open>The new reads-from: a read of a non-atomic location reads its
  location's happens-before-latest write; every other read, the run's.\<close>
definition rf2 :: "sev \<Rightarrow> sev" where
  "rf2 r = (if nal_ev P r then (SOME w. w \<in> cands r \<and> (\<forall>w' \<in> cands r. stamp w' \<le> stamp w)) else rfw r)"

lemma rf2_nal:
  assumes "is_rd P r" "nal_ev P r"
  shows "rf2 r \<in> cands r \<and> (\<forall>w' \<in> cands r. stamp w' \<le> stamp (rf2 r))"
  using someI_ex[OF cands_max[OF assms(1)]] assms(2) by (simp add: rf2_def)

lemma rf2_at: "\<not> nal_ev P r \<Longrightarrow> rf2 r = rfw r"
  by (simp add: rf2_def)

lemma rfw_loc: "is_rd P r \<Longrightarrow> is_wr P (rfw r) \<and> sloc P (rfw r) = sloc P r"
proof -
  assume r: "is_rd P r"
  obtain x where "sloc P r = Some x" using rd_acc[OF r] by auto
  then show ?thesis using rfw_last[OF r] by (auto simp: last_before_def before_def)
qed

lemma rf2_loc:
  assumes r: "is_rd P r"
  shows "is_wr P (rf2 r) \<and> sloc P (rf2 r) = sloc P r"
proof (cases "nal_ev P r")
  case True
  then show ?thesis using rf2_nal[OF r True] by (auto simp: cands_def)
next
  case False
  then show ?thesis using rf2_at[OF False] rfw_loc[OF r] by simp
qed

lemma rf2_time:
  assumes r: "is_rd P r"
  shows "stamp (rf2 r) < stamp r"
proof (cases "nal_ev P r")
  case True
  then have "(enc (rf2 r), enc r) \<in> ghb" using rf2_nal[OF r True] by (auto simp: cands_def)
  then show ?thesis using ghb_later by (auto simp: later_def)
next
  case False
  obtain x where "sloc P r = Some x" using rd_acc[OF r] by auto
  then show ?thesis using rfw_last[OF r] rf2_at[OF False] by (auto simp: last_before_def before_def)
qed

abbreviation X2 :: execution where "X2 \<equiv> src_exec L P rf2 co_r"

lemma X2_upd: "X2 = X\<lparr>rf := lift {(rf2 r, r) | r. is_rd P r}\<rparr>"
  by (simp add: src_exec_def)

lemmas rf_X2 = rf_XS[of _ _ L P rf2 co_r]
lemmas rf_X = rf_XS[of _ _ L P rfw co_r]

text \<open>Atomic reads keep their writes, so happens-before is the run's.\<close>
lemma ghb2: "opencl_rsp_n137 X2 = ghb"
proof -
  have "lift {(rf2 r, r) | r. is_rd P r} O opencl_rsp_n49 X = rf X O opencl_rsp_n49 X"
  proof -
    have at: "\<not> nal_ev P r" if "enc r \<in> tag X ''A''" "is_rd P r" for r
    proof
      assume n: "nal_ev P r"
      have "r \<in> src_tags P ''A''" using that(1) by (auto simp: tag_XS dest: enc_inj)
      then obtain t i p where "r = Acc t i p" "op_scope (ins P t i) \<noteq> NonAtomic" "acc P t i p"
        by (auto simp: src_tags_def split: sev.splits)
      then show False using nal_scope n by blast
    qed
    have iff: "(a, enc r) \<in> lift {(rf2 r, r) | r. is_rd P r} \<longleftrightarrow> (a, enc r) \<in> rf X"
      if "enc r \<in> tag X ''A''" for a r
      using at[OF that] rf2_at[of r] by (auto simp: rf_X lift_def dest: enc_inj)
    have "\<exists>r. b = enc r \<and> enc r \<in> tag X ''A''" if "b \<in> tag X ''A''" for b
      using that by (auto simp: tag_XS)
    then show ?thesis
      unfolding opencl_rsp_n49_def using iff by blast
  qed
  then show ?thesis unfolding X2_upd ghb_def by (rule upd_ghb)
qed

lemma co_X2: "co X2 = lift co_r"
  by (simp add: X2_upd co_lift)

lemma rf2_later: "rf X2 \<subseteq> later"
  using rf2_time by (auto simp: rf_X2 later_def)

section \<open>The new candidate is consistent\<close>

lemma coh2: "irrefl (opencl_rsp_n145 X2 O ghb)"
proof (rule irreflI, rule notI)
  fix a assume "(a, a) \<in> opencl_rsp_n145 X2 O ghb"
  then obtain b c d where ab: "(a, b) \<in> opt X2 (conv (rf X2))" and bc: "(b, c) \<in> co X2"
    and cd: "(c, d) \<in> opt X2 (rf X2)" and da: "(d, a) \<in> ghb"
    unfolding opencl_rsp_n145_def opencl_rsp_n141_def by blast
  obtain wb wc where w: "b = enc wb" "c = enc wc" "(wb, wc) \<in> co_r"
    using bc unfolding co_X2 by (auto simp: lift_def)
  have ww: "is_wr P wb" "is_wr P wc" "sloc P wb = sloc P wc" "stamp wb < stamp wc"
    using w(3) by (auto simp: co_r_def)
  have cd': "stamp wc \<le> tsn d \<and> (d = c \<or> (\<exists>rd. is_rd P rd \<and> d = enc rd \<and> wc = rf2 rd))"
    using cd w(2) rf2_time[THEN less_imp_le] by (auto simp: opt_def rf_X2)
  have da': "tsn d < tsn a" using da ghb_later by (auto simp: later_def)
  show False
  proof (cases "(a, b) \<in> conv (rf X2)")
    case False
    then have "a = b" using ab by (auto simp: opt_def)
    then show False using w(1) ww(4) cd' da' by simp
  next
    case True
    then obtain ra where ra: "is_rd P ra" "a = enc ra" "wb = rf2 ra"
      using w(1) by (auto simp: conv_is_converse rf_X2 dest: enc_inj)
    have loc: "sloc P wc = sloc P ra" using ww(3) rf2_loc[OF ra(1)] ra(3) by simp
    show False
    proof (cases "nal_ev P ra")
      case True
      have "(enc wc, a) \<in> ghb"
      proof (cases "d = c")
        case True
        then show ?thesis using da w(2) by simp
      next
        case False
        then obtain rd where rd: "is_rd P rd" "d = enc rd" "wc = rf2 rd" using cd' by blast
        have nr: "nal_ev P rd"
          using nal_same[of P rd ra] rf2_loc[OF rd(1)] rd(3) loc True by simp
        have "(enc wc, d) \<in> ghb" using rf2_nal[OF rd(1) nr] rd by (auto simp: cands_def)
        then show ?thesis using da ghb_trans by blast
      qed
      then have "wc \<in> cands ra" using ww(2) loc ra(2) by (simp add: cands_def)
      then show False using rf2_nal[OF ra(1) True] ra(3) ww(4) by fastforce
    next
      case False
      obtain x where x: "sloc P ra = Some x" using rd_acc[OF ra(1)] by auto
      have "last_before x (stamp ra) wb" using rfw_last[OF ra(1) x] rf2_at[OF False] ra(3) by simp
      moreover have "wc \<in> before x (stamp ra)"
        using ww(2) loc x cd' da' ra(2) by (simp add: before_def)
      ultimately show False using ww(4) by (auto simp: last_before_def)
    qed
  qed
qed

lemma nonatomic_rf2: "opencl_rsp_global_nonatomic_rf X2 = {}"
proof -
  have "(a, b) \<in> (opencl_rsp_n157 X2 \<inter> opencl_rsp_n137 X2) \<inter> (loc X2 - (((opencl_rsp_n137 X2 \<inter> loc X2)
      O opencl_rsp_n161 X2) O opencl_rsp_n137 X2))"
    if ab: "(a, b) \<in> rf X2 O Id_on (tag X2 ''nonatomicloc'' \<inter> tag X2 ''global'')" for a b
  proof -
    obtain r where r: "is_rd P r" "a = enc (rf2 r)" "b = enc r" "nal_ev P r"
      using ab by (auto simp: rf_X2 tag_XS tags_nal dest: enc_inj)
    have c: "rf2 r \<in> cands r" and m: "\<forall>w' \<in> cands r. stamp w' \<le> stamp (rf2 r)"
      using rf2_nal[OF r(1,4)] by auto
    have ev: "is_ev P (rf2 r)" "is_ev P r" using c r(1) by (auto simp: cands_def intro: ev_of)
    have "(a, b) \<in> opencl_rsp_n157 X2 \<inter> opencl_rsp_n137 X2"
      using c r ev by (auto simp: opencl_rsp_n157_def tag_XS tags_R tags_W ghb2 cands_def)
    moreover have "(a, b) \<in> loc X2"
      using c r ev rd_acc[OF r(1)] by (auto simp: loc_XS cands_def)
    moreover have "(a, b) \<notin> ((opencl_rsp_n137 X2 \<inter> loc X2) O opencl_rsp_n161 X2) O opencl_rsp_n137 X2"
    proof
      assume "(a, b) \<in> ((opencl_rsp_n137 X2 \<inter> loc X2) O opencl_rsp_n161 X2) O opencl_rsp_n137 X2"
      then obtain cc where ac: "(a, cc) \<in> ghb" "(a, cc) \<in> loc X2" "cc \<in> tag X2 ''W''" "(cc, b) \<in> ghb"
        unfolding ghb2 opencl_rsp_n161_def by blast
      obtain w where w: "cc = enc w" "is_wr P w" using ac(3) by (auto simp: tag_XS tags_W)
      have "sloc P w = sloc P r"
        using ac(2) w(1) r(2) c by (auto simp: loc_XS cands_def)
      then have "w \<in> cands r" using w ac(4) r(3) by (simp add: cands_def)
      then have "stamp w \<le> stamp (rf2 r)" using m by blast
      moreover have "stamp (rf2 r) < stamp w" using ac(1) ghb_later r(2) w(1) by (auto simp: later_def)
      ultimately show False by simp
    qed
    ultimately show ?thesis by blast
  qed
  then show ?thesis unfolding opencl_rsp_global_nonatomic_rf_def by blast
qed

lemma rmw2:
  assumes "\<not> na_rmw P"
  shows "opencl_rsp_rmw_atomicity X2 = {}"
proof (rule equals0I)
  fix p assume "p \<in> opencl_rsp_rmw_atomicity X2"
  then obtain a b c where p: "(a, c) \<in> rmw X2" "(a, b) \<in> fr X2" "(b, c) \<in> co X2"
    unfolding opencl_rsp_rmw_atomicity_def by blast
  obtain t i where ti: "a = enc (Acc t i False)" "c = enc (Acc t i True)" "acc P t i False" "acc P t i True"
    using p(1) by (auto simp: src_exec_def lift_def src_rmw_def)
  have n: "\<not> nal_ev P (Acc t i False)"
    using atomic_rmw[OF assms ti(4)] by (simp add: nal_ev_def)
  have "(a, b) \<in> fr X"
  proof -
    obtain w where w: "(w, a) \<in> rf X2" "(w, b) \<in> co X2"
      using p(2) by (auto simp: fr_def conv_is_converse)
    have "(w, a) \<in> rf X"
      using w(1) ti(1) rf2_at[OF n] by (auto simp: rf_X2 rf_X dest: enc_inj)
    moreover have "(w, b) \<in> co X" using w(2) by (simp add: X2_upd)
    ultimately show ?thesis by (auto simp: fr_def conv_is_converse)
  qed
  then have "tsn a < tsn b" using fr_later[of L] by (auto simp: later_def)
  moreover have "tsn b < tsn c" using p(3) co_later[of L] by (auto simp: X2_upd later_def)
  moreover have "tsn c = Suc (tsn a)" using ti by simp
  ultimately show False by simp
qed

theorem consistent2:
  assumes "\<not> na_rmw P"
  shows "opencl_rsp_consistent X2"
proof -
  have g: "opencl_rsp_n137 X2 = ghb" by (rule ghb2)
  have l: "opencl_rsp_n140 X2 = {}" by (rule XS_lhb)
  have irr: "irrefl ghb" using ghb_later by (auto simp: irrefl_def later_def)
  have po: "opencl_rsp_n100 X2 \<inter> po X2 \<subseteq> ghb"
    unfolding g[symmetric] by (auto simp: opencl_rsp_n137_def opencl_rsp_n134_def)
  have c1: "irrefl (opencl_rsp_global_hb_acyclic X2)"
    using irr by (simp add: opencl_rsp_global_hb_acyclic_def g)
  have c2: "irrefl (opencl_rsp_local_hb_acyclic X2)"
    by (simp add: opencl_rsp_local_hb_acyclic_def l irrefl_def)
  have c3: "irrefl (opencl_rsp_global_coherence X2)"
    using coh2 by (simp add: opencl_rsp_global_coherence_def g)
  have c4: "irrefl (opencl_rsp_local_coherence X2)"
    by (simp add: opencl_rsp_local_coherence_def l irrefl_def)
  have c5: "irrefl (opencl_rsp_global_coherence_po X2)"
    using coh2 po unfolding opencl_rsp_global_coherence_po_def irrefl_def by blast
  have c6: "irrefl (opencl_rsp_local_coherence_po X2)"
    by (simp add: opencl_rsp_local_coherence_po_def XS_n125 irrefl_def)
  have c7: "irrefl (opencl_rsp_rf_hb X2)"
  proof (rule irreflI, rule notI)
    fix a assume "(a, a) \<in> opencl_rsp_rf_hb X2"
    then have "(a, a) \<in> later O later"
      using rf2_later ghb_later unfolding opencl_rsp_rf_hb_def opencl_rsp_n152_def g l by blast
    then show False by (auto simp: later_def)
  qed
  have c9: "opencl_rsp_local_nonatomic_rf X2 = {}"
    by (simp add: opencl_rsp_local_nonatomic_rf_def tag_XS_none)
  have c11: "acyclic (opencl_rsp_scoped_sc X2)"
    by (simp add: opencl_rsp_scoped_sc_def XS_n103 acyclic_def)
  show ?thesis
    unfolding opencl_rsp_consistent_def
    using c1 c2 c3 c4 c5 c6 c7 nonatomic_rf2 c9 rmw2[OF assms] c11 by blast
qed

section \<open>The run's own candidate, or a race\<close>

text \<open>Where every read of a non-atomic location reads a write before it in
  happens-before, the new candidate is the run's.\<close>
lemma rf2_same:
  assumes "\<forall>r. is_rd P r \<longrightarrow> nal_ev P r \<longrightarrow> (enc (rfw r), enc r) \<in> ghb"
  shows "X2 = X"
proof -
  have "rf2 r = rfw r" if r: "is_rd P r" for r
  proof (cases "nal_ev P r")
    case True
    obtain x where x: "sloc P r = Some x" using rd_acc[OF r] by auto
    have lb: "last_before x (stamp r) (rfw r)" using rfw_last[OF r x] by simp
    have "rfw r \<in> cands r" using assms r True rfw_loc[OF r] by (simp add: cands_def)
    then have le: "stamp (rfw r) \<le> stamp (rf2 r)" using rf2_nal[OF r True] by blast
    have "rf2 r \<in> before x (stamp r)"
      using rf2_loc[OF r] rf2_time[OF r] x by (simp add: before_def)
    then have "stamp (rf2 r) \<le> stamp (rfw r)" using lb by (auto simp: last_before_def)
    then have "stamp (rf2 r) = stamp (rfw r)" using le by simp
    then show ?thesis
      using stamp_inj[of "rf2 r" "rfw r"] rf2_loc[OF r] rfw_loc[OF r] by simp
  next
    case False
    then show ?thesis by (rule rf2_at)
  qed
  then have "{(rf2 r, r) | r. is_rd P r} = {(rfw r, r) | r. is_rd P r}" by auto
  then show ?thesis by (simp add: src_exec_def)
qed

text \<open>Otherwise a read of a non-atomic location read a write not before it
  in happens-before: the two race in the new candidate.\<close>
lemma race2:
  assumes r: "is_rd P r" "nal_ev P r" and nh: "(enc (rfw r), enc r) \<notin> ghb"
  shows "(enc (rfw r), enc r) \<in> opencl_rsp_data_race X2"
proof -
  obtain t i x where ti: "r = Acc t i False" "acc P t i False" "addr_of (ins P t i) = Some x"
    using rd_acc[OF r(1)] by blast
  have w: "is_wr P (rfw r)" "sloc P (rfw r) = Some x" using rfw_loc[OF r(1)] ti by auto
  have time: "stamp (rfw r) < stamp r" using rfw_last[OF r(1)] w(2) ti by (auto simp: last_before_def before_def)
  obtain u j q where uj: "rfw r = Acc u j q" "acc P u j q"
  proof (cases "rfw r")
    case (Init y)
    then have "(enc (rfw r), enc r) \<in> ghb"
      using init_first[of y t i False] w(1) ti(1,2) by simp
    then show ?thesis using nh by simp
  next
    case (Acc u j q)
    then show ?thesis using that w(1) by simp
  qed
  have nw: "nal_ev P (rfw r)" using nal_same[of P "rfw r" r] r(2) w(2) ti by simp
  have ev: "is_ev P (rfw r)" "is_ev P r" using w(1) r(1) by (auto intro: ev_of)
  have conflict: "(enc (rfw r), enc r) \<in> opencl_rsp_n157 X2 \<inter> loc X2
      \<inter> (opencl_rsp_n132 X2 \<times> opencl_rsp_n132 X2)"
    using w r(1) ev ti uj
    by (auto simp: opencl_rsp_n157_def opencl_rsp_n132_def tag_XS tags_R tags_W tags_IW loc_XS events_XS)
  have nhb: "(enc (rfw r), enc r) \<notin> opencl_rsp_n152 X2" "(enc r, enc (rfw r)) \<notin> opencl_rsp_n152 X2"
    using nh time ghb_later unfolding opencl_rsp_n152_def ghb2 XS_lhb by (auto simp: later_def)
  have nwi: "(enc (rfw r), enc r) \<notin> same_thread_attr X2 ''wi''"
  proof
    assume "(enc (rfw r), enc r) \<in> same_thread_attr X2 ''wi''"
    then have "u = t" using uj ti same_wi_XS by fastforce
    then have "j < i"
    proof -
      have "\<not> i < j"
      proof
        assume "i < j"
        then have "k_of t i < k_of t j" using k_of_po uj(2) \<open>u = t\<close> by (auto simp: acc_def)
        then show False using time uj(1) ti(1) \<open>u = t\<close> by (simp split: if_splits)
      qed
      moreover have "i \<noteq> j" using time uj(1) ti(1) \<open>u = t\<close> by (auto split: if_splits)
      ultimately show ?thesis by simp
    qed
    then have "(rfw r, r) \<in> src_po P" using uj ti \<open>u = t\<close> by (auto simp: src_po_def)
    then have "(enc (rfw r), enc r) \<in> po X"
      using lift_mem unfolding po_def by (simp add: src_exec_def r_into_trancl')
    then show False using po_ghb nh by blast
  qed
  have nincl: "(enc (rfw r), enc r) \<notin> opencl_rsp_n90 X2"
    using incl_scoped nal_unscoped[OF nw ev(1)] nal_unscoped[OF r(2) ev(2)] by blast
  show ?thesis
    using conflict nhb nwi nincl unfolding opencl_rsp_data_race_def by (simp add: conv_is_converse)
qed

text \<open>A race in the moved candidate, which is consistent, makes the program racy.\<close>
lemma racy2:
  assumes "\<not> na_rmw P" "opencl_rsp_data_race X2 \<noteq> {}"
  shows "src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
proof -
  have "cand_ok P rf2 co_r (vv rf2)"
    using run_cand rf2_loc values_exist[OF rf2_time] by (auto simp: cand_ok_def)
  then show ?thesis unfolding src_racy_def using consistent2[OF assms(1)] assms(2) by blast
qed

theorem run_allowed_or_racy:
  assumes "\<not> na_rmw P"
  shows "(sc_regs (run P T), sc_mem (run P T)) \<in> src_allowed opencl_rsp_consistent L P
    \<or> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
proof (cases "\<forall>r. is_rd P r \<longrightarrow> nal_ev P r \<longrightarrow> (enc (rfw r), enc r) \<in> ghb")
  case True
  then have "opencl_rsp_consistent X" using consistent2[OF assms] rf2_same by simp
  then show ?thesis
    unfolding src_allowed_def using run_cand run_outcome by blast
next
  case False
  then obtain r where r: "is_rd P r" "nal_ev P r" "(enc (rfw r), enc r) \<notin> ghb" by blast
  have "opencl_rsp_data_race X2 \<noteq> {}" using race2[OF r] by blast
  then show ?thesis using racy2[OF assms] by blast
qed

end

section \<open>OpenCL+RSP allows every SC outcome of a race-free program\<close>

theorem opencl_rsp_sc_outcomes:
  assumes "\<not> na_rmw P" "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
  shows "sc_outcomes P \<subseteq> src_allowed opencl_rsp_consistent L P"
proof
  fix ob assume "ob \<in> sc_outcomes P"
  then obtain s where s: "(sc_initial P, s) \<in> (sc_step P)\<^sup>*"
    "\<forall>t \<in> src_threads P. sc_pc s t \<ge> length (src_code P t)" "ob = (sc_regs s, sc_mem s)"
    by (auto simp: sc_outcomes_def)
  obtain T where T: "valid P T" "run P T = s"
    using steps_run[OF s(1)] by blast
  interpret ocl_run P T L
    using T s(2) by unfold_locales simp_all
  show "ob \<in> src_allowed opencl_rsp_consistent L P"
    using run_allowed_or_racy[OF assms(1)] assms(2) s(3) T(2) by blast
qed

text \<open>OpenCL+RSP as a source model: allowed, the outcomes of its consistent
  candidates; undefined (racy), a program with a consistent candidate that
  has a data race, or with an RMW of no scope (not an OpenCL program).\<close>
interpretation opencl_rsp_source:
  sc_source_model "src_allowed opencl_rsp_consistent"
    "\<lambda>L P. src_racy opencl_rsp_consistent opencl_rsp_data_race L P \<or> na_rmw P"
  by unfold_locales (simp add: opencl_rsp_sc_outcomes)


section \<open>A race-free program's conflicting accesses are in each other's scope\<close>

text \<open>In a straight-line program, two conflicting accesses of two threads,
  a write of the first and any access of the second, are in each other's
  scope (opencl-rsp's scope inclusion, remote promotion included) unless
  the program is racy: run the two threads up to them, the write first and
  the other access right after it, then every thread to its end. Nothing
  comes between the two in time, so global happens-before orders them only
  by one synchronisation edge, which relates accesses in each other's
  scope; unordered, they race. So non-atomic accesses and atomics of
  scopes that leave each other out are never shared across threads by a
  race-free program.\<close>

lemma po_thread: "(a, b) \<in> po (src_exec L P f cs) \<Longrightarrow> sthread (dec a) = sthread (dec b)"
proof -
  assume "(a, b) \<in> po (src_exec L P f cs)"
  then have "(a, b) \<in> (lift (src_po P))\<^sup>+" by (simp add: po_def src_exec_def)
  then show ?thesis
    by (induction rule: trancl_induct) (auto simp: lift_def src_po_def)
qed

lemma n90_XS: "opencl_rsp_n90 (src_exec L P f cs) = opencl_rsp_n90 (src_exec L P g ds)"
proof -
  have "tag (src_exec L P f cs) = tag (src_exec L P g ds)"
    by (rule ext) (simp add: tag_def src_exec_def)
  moreover have "same_thread_attr (src_exec L P f cs) = same_thread_attr (src_exec L P g ds)"
  proof -
    have "thread_attr (src_exec L P f cs) = thread_attr (src_exec L P g ds)"
      "thread_of (src_exec L P f cs) = thread_of (src_exec L P g ds)"
      "events (src_exec L P f cs) = events (src_exec L P g ds)"
      by (simp_all add: src_exec_def)
    then show ?thesis unfolding same_thread_attr_def pairs_where_def by (simp only:)
  qed
  moreover have "universal (src_exec L P f cs) = universal (src_exec L P g ds)"
    by (simp add: universal_def src_exec_def)
  ultimately show ?thesis
    unfolding opencl_rsp_n90_def opencl_rsp_n82_def opencl_rsp_n83_def opencl_rsp_n86_def by (simp only:)
qed

context ocl_run
begin

text \<open>A step of global happens-before ends at an event.\<close>
lemma base_target:
  assumes "(a, c) \<in> (opencl_rsp_n100 X \<inter> opencl_rsp_n134 X) \<union> opencl_rsp_n92 X"
  shows "\<exists>e. is_ev P e \<and> c = enc e"
proof (cases "(a, c) \<in> opencl_rsp_n92 X")
  case True
  then obtain b where "(b, c) \<in> rf X" using XS_n92 by blast
  then obtain r where "is_rd P r" "c = enc r" by (auto simp: rf_X)
  then show ?thesis by (blast intro: ev_of)
next
  case False
  then have "c \<in> tag X ''global''" using assms by (auto simp: opencl_rsp_n100_def)
  then show ?thesis by (auto simp: tag_XS tags_global)
qed

text \<open>Between two events with no event between them in time, global
  happens-before is one of its steps.\<close>
lemma ghb_one_step:
  assumes ab: "(enc a, enc b) \<in> ghb"
    and none: "\<And>e. is_ev P e \<Longrightarrow> stamp a < stamp e \<Longrightarrow> stamp e < stamp b \<Longrightarrow> False"
  shows "(enc a, enc b) \<in> (opencl_rsp_n100 X \<inter> opencl_rsp_n134 X) \<union> opencl_rsp_n92 X"
proof -
  let ?B = "(opencl_rsp_n100 X \<inter> opencl_rsp_n134 X) \<union> opencl_rsp_n92 X"
  have "(enc a, enc b) \<in> ?B\<^sup>+" using ab unfolding ghb_def XS_ghb_gen .
  then show ?thesis
  proof (rule tranclE)
    assume "(enc a, enc b) \<in> ?B"
    then show ?thesis .
  next
    fix c assume ac: "(enc a, c) \<in> ?B\<^sup>+" and cb: "(c, enc b) \<in> ?B"
    have "\<exists>y. (y, c) \<in> ?B" using ac by (induction rule: trancl.induct) blast+
    then obtain e where e: "is_ev P e" "c = enc e" using base_target by blast
    have "(enc a, c) \<in> later" using ac later_trancl[OF base_later] by blast
    moreover have "(c, enc b) \<in> later" using cb base_later by blast
    ultimately have "stamp a < stamp e" "stamp e < stamp b" using e(2) by (simp_all add: later_def)
    then show ?thesis using none[OF e(1)] by blast
  qed
qed

text \<open>A step between two threads' events is a synchronisation: its ends
  are in each other's scope.\<close>
lemma cross_step_incl:
  assumes s: "(enc a, enc b) \<in> (opencl_rsp_n100 X \<inter> opencl_rsp_n134 X) \<union> opencl_rsp_n92 X"
    and ab: "sthread a \<noteq> sthread b" and a: "a = Acc t i p"
  shows "(enc a, enc b) \<in> opencl_rsp_n90 X"
proof -
  have "(enc a, enc b) \<notin> opencl_rsp_n134 X"
  proof
    assume "(enc a, enc b) \<in> opencl_rsp_n134 X"
    then consider "(enc a, enc b) \<in> po X" | "enc a \<in> tag X ''IW''"
      by (auto simp: opencl_rsp_n134_def)
    then show False
    proof cases
      case 1
      then show False using po_thread[OF 1] ab by simp
    next
      case 2
      then show False using a by (auto simp: tag_XS tags_IW dest: enc_inj)
    qed
  qed
  then have "(enc a, enc b) \<in> opencl_rsp_n92 X" using s by blast
  then show ?thesis by (simp add: opencl_rsp_n92_def opencl_rsp_n91_def)
qed

text \<open>A write and a later access of its location by another thread, with
  no event between them in time, are in each other's scope, or the
  program is racy.\<close>
lemma adjacent_incl:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and a: "a = Acc t i p" "is_wr P a"
    and b: "is_rd P b \<or> is_wr P b" "sloc P b = sloc P a" "sthread a \<noteq> sthread b"
    and ab: "stamp a < stamp b"
    and none: "\<And>e. is_ev P e \<Longrightarrow> stamp a < stamp e \<Longrightarrow> stamp e < stamp b \<Longrightarrow> False"
  shows "(enc a, enc b) \<in> opencl_rsp_n90 X"
proof (cases "(enc a, enc b) \<in> ghb")
  case True
  show ?thesis using cross_step_incl[OF ghb_one_step[OF True none] b(3) a(1)] .
next
  case False
  show ?thesis
  proof (rule ccontr)
    assume ni: "(enc a, enc b) \<notin> opencl_rsp_n90 X"
    obtain x where x: "sloc P a = Some x" using a by (auto dest: wr_addr)
    have ev: "is_ev P a" "is_ev P b" using a(2) b(1) by (auto intro: ev_of)
    obtain u j q where bu: "b = Acc u j q"
    proof (cases b)
      case (Init y)
      then show ?thesis using ab by simp
    next
      case (Acc u j q)
      then show ?thesis using that by simp
    qed
    have conflict: "(enc a, enc b) \<in> (((tag X2 ''W'' \<times> tag X2 ''W'') \<union> opencl_rsp_n157 X2)
        \<union> (tag X2 ''R'' \<times> tag X2 ''W'')) \<inter> loc X2 \<inter> (opencl_rsp_n132 X2 \<times> opencl_rsp_n132 X2)"
      using a b(1,2) ev x bu
      by (auto simp: opencl_rsp_n157_def opencl_rsp_n132_def tag_XS tags_R tags_W tags_IW loc_XS events_XS)
    have nhb: "(enc a, enc b) \<notin> opencl_rsp_n152 X2" "(enc b, enc a) \<notin> opencl_rsp_n152 X2"
      using False ab ghb_later unfolding opencl_rsp_n152_def ghb2 XS_lhb by (auto simp: later_def)
    have nwi: "(enc a, enc b) \<notin> same_thread_attr X2 ''wi''"
      using same_wi_XS[of a b L P rf2 co_r] b(3) by blast
    have "(enc a, enc b) \<notin> opencl_rsp_n90 X2" using ni by (simp add: X2_upd)
    then have "(enc a, enc b) \<in> opencl_rsp_data_race X2"
      using conflict nhb nwi unfolding opencl_rsp_data_race_def by (simp add: conv_is_converse)
    then show False using rfree racy2[OF nr] by blast
  qed
qed

end

text \<open>The schedule: the two threads up to the two accesses, the write, the
  other access, then every thread to its end.\<close>
lemma between_stamps:
  fixes a k :: nat
  assumes "2 * a + (if p then 2 else 1) < 2 * k + (if q then 2 else 1)" "2 * k + (if q then 2 else 1) < 2 * a + 3"
  shows "q \<and> \<not> p \<and> k = a"
proof (cases p)
  case True
  then show ?thesis using assms by (cases q) auto
next
  case False
  then show ?thesis using assms by (cases q) auto
qed

lemma count_replicate: "count_list (replicate n x) y = (if x = y then n else 0)"
  by (induction n) auto

lemma count_concat: "count_list (concat (map g xs)) y = sum_list (map (\<lambda>x. count_list (g x) y) xs)"
  by (induction xs) auto

lemma sum_one: "distinct xs \<Longrightarrow> sum_list (map (\<lambda>x. if x = y then n x else (0::nat)) xs) = (if y \<in> set xs then n y else 0)"
  by (induction xs) auto

lemma valid_counts:
  "set ts \<subseteq> src_threads P \<Longrightarrow> (\<forall>v. count_list ts v \<le> length (src_code P v)) \<Longrightarrow> valid P ts"
proof (induction ts rule: rev_induct)
  case Nil
  then show ?case by (simp add: valid_def)
next
  case (snoc x xs)
  have "\<forall>v. count_list xs v \<le> length (src_code P v)"
  proof
    fix v show "count_list xs v \<le> length (src_code P v)"
      using snoc.prems(2)[rule_format, of v] by simp
  qed
  then have "valid P xs" using snoc by simp
  moreover have "count_list xs x < length (src_code P x)" using snoc.prems(2)[rule_format, of x] by simp
  ultimately show ?case using snoc.prems(1) by (simp add: valid_snoc run_pc)
qed

definition pair_sched :: "src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> tid list" where
  "pair_sched P t i u j = replicate i t @ replicate j u @ [t, u]
     @ replicate (length (src_code P t) - Suc i) t @ replicate (length (src_code P u) - Suc j) u
     @ concat (map (\<lambda>v. replicate (length (src_code P v)) v)
         (filter (\<lambda>v. v \<noteq> t \<and> v \<noteq> u) (sorted_list_of_set (src_threads P))))"

lemma pair_sched_count:
  assumes "finite (src_threads P)" "t \<in> src_threads P" "u \<in> src_threads P" "t \<noteq> u"
    "i < length (src_code P t)" "j < length (src_code P u)"
  shows "count_list (pair_sched P t i u j) v = (if v \<in> src_threads P then length (src_code P v) else 0)"
proof -
  let ?O = "filter (\<lambda>v. v \<noteq> t \<and> v \<noteq> u) (sorted_list_of_set (src_threads P))"
  have d: "distinct ?O" by simp
  have s: "set ?O = src_threads P - {t, u}" using assms(1) by auto
  have "count_list (concat (map (\<lambda>v. replicate (length (src_code P v)) v) ?O)) v
      = (if v \<in> src_threads P - {t, u} then length (src_code P v) else 0)"
    unfolding count_concat count_replicate sum_one[OF d] s ..
  then show ?thesis using assms by (auto simp: pair_sched_def count_replicate)
qed

lemma pair_sched_run:
  assumes "finite (src_threads P)" "t \<in> src_threads P" "u \<in> src_threads P" "t \<noteq> u"
    "i < length (src_code P t)" "j < length (src_code P u)"
  shows "sc_run P (pair_sched P t i u j)"
proof
  let ?T = "pair_sched P t i u j"
  have c: "\<And>v. count_list ?T v = (if v \<in> src_threads P then length (src_code P v) else 0)"
    using pair_sched_count[OF assms] .
  have "set ?T \<subseteq> src_threads P"
  proof
    fix v assume "v \<in> set ?T"
    then have "count_list ?T v \<noteq> 0" by (simp add: count_list_0_iff)
    then show "v \<in> src_threads P" using c[of v] by (auto split: if_splits)
  qed
  moreover have "\<forall>v. count_list ?T v \<le> length (src_code P v)" using c by simp
  ultimately show "valid P ?T" by (rule valid_counts)
  show "\<forall>v \<in> src_threads P. sc_pc (run P ?T) v \<ge> length (src_code P v)" using c by (simp add: run_pc)
qed

theorem race_free_conflicts_incl:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)"
    and a: "acc P t i p" "wr (ins P t i) p" and b: "acc P u j False" and tu: "t \<noteq> u"
    and same: "addr_of (ins P u j) = addr_of (ins P t i)"
  shows "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n90 (src_exec L P f cs)"
proof -
  let ?T = "pair_sched P t i u j"
  have th: "t \<in> src_threads P" "i < length (src_code P t)" "u \<in> src_threads P" "j < length (src_code P u)"
    using a(1) b by (auto simp: acc_def)
  interpret ocl_run P ?T L
    using pair_sched_run[OF fin th(1) th(3) tu th(2) th(4)] by (simp add: ocl_run_def)
  have Tt: "?T ! (i + j) = t" "take (i + j) ?T = replicate i t @ replicate j u"
    by (simp_all add: pair_sched_def nth_append)
  have Tu: "?T ! Suc (i + j) = u" "take (Suc (i + j)) ?T = replicate i t @ replicate j u @ [t]"
    by (simp_all add: pair_sched_def nth_append take_Suc_conv_app_nth)
  have len: "Suc (i + j) < length ?T" by (simp add: pair_sched_def)
  have kt: "k_of t i = i + j"
    using k_of_step[of "i + j"] len Tt tu by (simp add: count_replicate)
  have ku: "k_of u j = Suc (i + j)"
    using k_of_step[of "Suc (i + j)"] len Tu tu by (simp add: count_replicate)
  have wa: "is_wr P (Acc t i p)" using a by simp
  have rb: "is_rd P (Acc u j False) \<or> is_wr P (Acc u j False)" using b by (auto simp: acc_def)
  have none: False
    if e: "is_ev P e" "stamp (Acc t i p) < stamp e" "stamp e < stamp (Acc u j False)" for e
  proof (cases e)
    case (Init x)
    then show False using e(2) by simp
  next
    case (Acc v m q)
    have ae: "acc P v m q" using e(1) Acc by simp
    have sa: "stamp (Acc t i p) = 2 * (i + j) + (if p then 2 else 1)"
      and sb: "stamp (Acc u j False) = 2 * (i + j) + 3" and se: "stamp e = 2 * k_of v m + (if q then 2 else 1)"
      using kt ku Acc by simp_all
    have qk: "q \<and> \<not> p \<and> k_of v m = i + j"
      using e(2,3) unfolding sa sb se by (rule between_stamps)
    then have "(v, m) = (t, i)" using k_of_evl[OF ae] k_of_evl[OF a(1)] kt by simp
    then have "acc P t i True" using ae qk by simp
    then have "wr (ins P t i) True" by (auto simp: acc_def dest: rd_part)
    then obtain sc rm r x where "ins P t i = Op (FetchInc sc rm) r x" using wr_part by blast
    then show False using a(2) qk by simp
  qed
  have "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n90 X"
    using adjacent_incl[OF nr rfree refl wa rb _ _ _ none] same tu kt ku by simp
  then show ?thesis using n90_XS by blast
qed


text \<open>So a location no operation accesses atomically is shared by no two
  threads of a race-free program that writes it: each access of it is by
  the writer's thread.\<close>
corollary race_free_nonatomic_local:
  assumes nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    and fin: "finite (src_threads P)"
    and a: "acc P t i p" "wr (ins P t i) p" and b: "acc P u j False"
    and same: "addr_of (ins P u j) = addr_of (ins P t i)" and na: "nal_ev P (Acc t i p)"
  shows "u = t"
proof (rule ccontr)
  assume "u \<noteq> t"
  then have "(enc (Acc t i p), enc (Acc u j False)) \<in> opencl_rsp_n90 (src_exec L P (\<lambda>r. r) {})"
    using race_free_conflicts_incl[OF nr rfree fin a b _ same] by simp
  then have "enc (Acc t i p) \<in> scoped (src_exec L P (\<lambda>r. r) {})
      \<or> enc (Acc u j False) \<in> scoped (src_exec L P (\<lambda>r. r) {})"
    by (rule incl_scoped)
  moreover have "nal_ev P (Acc u j False)" using na same by (simp add: nal_ev_def)
  ultimately show False using nal_unscoped na a(1) b by fastforce
qed

end
