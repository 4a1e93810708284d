(* hrf base theory: a scheme's soundness on one compiled program ([RSP15]
   sec. 5: no outcome the source model forbids, and no deadlock), proved by
   the closure method of Hrf_Closure with a check that a final state stays
   within reach of every reachable state. The theories that hrf exports for
   a family of source programs (`hrf.isabelle.export_scheme_family`) prove
   it program by program over Hrf_Mapping's compile. Written by hand. *)
theory Hrf_Soundness
  imports Hrf_Closure Hrf_Mapping
begin

section \<open>States from which a final state is reachable\<close>

text \<open>What the check below establishes of an encoded state: from every
  state with that finite part (and no dirty line elsewhere) the machine can
  reach a final state.\<close>
definition can_finish :: "dom \<Rightarrow> layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> astate \<Rightarrow> bool" where
  "can_finish D L wb P a \<longleftrightarrow>
     (\<forall>s. enc D s = a \<longrightarrow> clean_outside (addrs P) s \<longrightarrow> (\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> is_final L P s'))"

lemma bst_set_ins [simp]: "bst_set (bst_ins h x t) = insert x (bst_set t)"
  by (induction h x t rule: bst_ins.induct) auto

lemma set_map_filter_iff: "y \<in> set (List.map_filter f xs) \<longleftrightarrow> (\<exists>x \<in> set xs. f x = Some y)"
  by (induction xs) (auto simp: List.map_filter_def split: option.splits)

lemma steps_clean_outside:
  "(s, s') \<in> (step L wb P)\<^sup>* \<Longrightarrow> clean_outside (addrs P) s \<Longrightarrow> clean_outside (addrs P) s'"
  by (induction rule: rtrancl_induct) (auto intro: step_clean_outside)

lemma final_can_finish:
  assumes ok: "dom_ok D L P" and fin: "is_final_on (addrs P) L P (conc D a)"
  shows "can_finish D L wb P a"
  unfolding can_finish_def
proof (intro allI impI)
  fix s assume e: "enc D s = a" and c: "clean_outside (addrs P) s"
  have "agree D (conc D a) s"
    using agree_conc[of D s] e by (simp add: agree_def)
  then have "is_final_on (addrs P) L P s"
    by (rule final_on_agree[OF ok _ fin])
  with c have "is_final L P s"
    unfolding is_final_on_def is_final_def clean_outside_def by blast
  then show "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> is_final L P s'" by blast
qed

lemma succ_can_finish:
  assumes ok: "dom_ok D L P" and b: "b \<in> set (succs D L wb P a)" and fb: "can_finish D L wb P b"
  shows "can_finish D L wb P a"
  unfolding can_finish_def
proof (intro allI impI)
  fix s assume e: "enc D s = a" and c: "clean_outside (addrs P) s"
  obtain l c' where l: "l \<in> set (labels D)" and lc: "label_step L wb P l (conc D a) = Some c'"
    and bc: "b = enc D c'"
    using b unfolding succs_def set_map_filter_iff by (auto split: option.splits)
  have ag: "agree D s (conc D a)"
    using agree_conc[of D s] e by simp
  have "rel_option (agree D) (label_step L wb P l s) (label_step L wb P l (conc D a))"
    by (rule label_cong[OF ok ag l c conc_clean[OF ok]])
  then obtain s2 where ls: "label_step L wb P l s = Some s2" and ag2: "agree D s2 c'"
    using lc by (cases "label_step L wb P l s") auto
  have st: "(s, s2) \<in> (step L wb P)\<^sup>*"
    by (rule label_step_steps[OF ls])
  have "enc D s2 = b" using ag2 bc by (simp add: agree_def)
  moreover have "clean_outside (addrs P) s2" by (rule steps_clean_outside[OF st c])
  ultimately obtain s' where "(s2, s') \<in> (step L wb P)\<^sup>*" "is_final L P s'"
    using fb unfolding can_finish_def by blast
  with st show "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> is_final L P s'"
    by (meson rtrancl_trans)
qed

text \<open>The check: the successors of each state of the closed set, computed
  once; the final states; then rounds in which a state joins when one of its
  successors has joined, until a round adds none. Every state that joins can
  finish.\<close>
definition succ_graph :: "dom \<Rightarrow> layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> astate list \<Rightarrow> (astate \<times> (int \<times> astate) list) list" where
  "succ_graph D L wb P as = map (\<lambda>a. (a, map (\<lambda>b. (hash b, b)) (succs D L wb P a))) as"

definition join_round :: "(astate \<times> (int \<times> astate) list) list \<Rightarrow> bst \<Rightarrow> bst" where
  "join_round G B = fold (\<lambda>g B'. if bst_mem (hash (fst g)) (fst g) B' then B'
       else if list_ex (\<lambda>hb. bst_mem (fst hb) (snd hb) B') (snd g) then bst_ins (hash (fst g)) (fst g) B' else B') G B"

fun join_rounds :: "nat \<Rightarrow> (astate \<times> (int \<times> astate) list) list \<Rightarrow> bst \<Rightarrow> bst" where
  "join_rounds 0 G B = B"
| "join_rounds (Suc n) G B =
     (let B' = join_round G B in if length (bst_list B') = length (bst_list B) then B else join_rounds n G B')"

definition finals_tree :: "dom \<Rightarrow> layout \<Rightarrow> program \<Rightarrow> astate list \<Rightarrow> bst" where
  "finals_tree D L P as = fold (\<lambda>a B. if is_final_on (addrs P) L P (conc D a) then bst_ins (hash a) a B else B) as Tip"

definition progress_check :: "dom \<Rightarrow> layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> bst \<Rightarrow> bool" where
  "progress_check D L wb P V \<longleftrightarrow>
     (let as = bst_list V;
          B = join_rounds (length as) (succ_graph D L wb P as) (finals_tree D L P as)
      in \<forall>a \<in> set as. bst_mem (hash a) a B)"

lemma finals_tree_can_finish:
  assumes ok: "dom_ok D L P"
  shows "\<forall>x \<in> bst_set (finals_tree D L P as). can_finish D L wb P x"
proof -
  have step: "\<forall>x \<in> bst_set B. can_finish D L wb P x \<Longrightarrow>
      \<forall>x \<in> bst_set (fold (\<lambda>a B. if is_final_on (addrs P) L P (conc D a) then bst_ins (hash a) a B else B) as B).
        can_finish D L wb P x" for B
  proof (induction as arbitrary: B)
    case Nil
    then show ?case by simp
  next
    case (Cons a as)
    let ?B = "if is_final_on (addrs P) L P (conc D a) then bst_ins (hash a) a B else B"
    have "can_finish D L wb P a" if "is_final_on (addrs P) L P (conc D a)"
      using final_can_finish[OF ok that] .
    then have "\<forall>x \<in> bst_set ?B. can_finish D L wb P x"
      using Cons.prems by (simp only: bst_set_ins split: if_splits) blast
    then show ?case using Cons.IH[of ?B] by (simp only: fold_Cons comp_def)
  qed
  show ?thesis unfolding finals_tree_def by (rule step) simp
qed

text \<open>(The lemmas below keep encoded states whole: they are 9-tuples, which
  the simplifier would otherwise split into their components.)\<close>
lemma join_step_within: "bst_set (if c then B else if d then bst_ins h x B else B) \<subseteq> insert x (bst_set B)"
  by (cases c; cases d) auto

lemma join_round_can_finish:
  assumes G: "\<forall>g \<in> set G. \<forall>hb \<in> set (snd g). can_finish D L wb P (snd hb) \<longrightarrow> can_finish D L wb P (fst g)"
    and B: "\<forall>x \<in> bst_set B. can_finish D L wb P x"
  shows "\<forall>x \<in> bst_set (join_round G B). can_finish D L wb P x"
  using assms unfolding join_round_def
proof (induction G arbitrary: B)
  case Nil
  then show ?case by (simp only: fold_simps(1) id_apply)
next
  case (Cons g G)
  let ?B' = "if bst_mem (hash (fst g)) (fst g) B then B
       else if list_ex (\<lambda>hb. bst_mem (fst hb) (snd hb) B) (snd g) then bst_ins (hash (fst g)) (fst g) B else B"
  have g_in: "g \<in> set (g # G)" by simp
  have here: "\<forall>hb \<in> set (snd g). can_finish D L wb P (snd hb) \<longrightarrow> can_finish D L wb P (fst g)"
    using bspec[OF Cons.prems(1) g_in] .
  have rest: "\<forall>g' \<in> set G. \<forall>hb \<in> set (snd g'). can_finish D L wb P (snd hb) \<longrightarrow> can_finish D L wb P (fst g')"
  proof (rule ballI)
    fix g' assume "g' \<in> set G"
    then have "g' \<in> set (g # G)" by simp
    from bspec[OF Cons.prems(1) this]
    show "\<forall>hb \<in> set (snd g'). can_finish D L wb P (snd hb) \<longrightarrow> can_finish D L wb P (fst g')" .
  qed
  have B': "\<forall>x \<in> bst_set ?B'. can_finish D L wb P x"
  proof (cases "list_ex (\<lambda>hb. bst_mem (fst hb) (snd hb) B) (snd g)")
    case True
    then obtain hb where hb: "hb \<in> set (snd g)" "bst_mem (fst hb) (snd hb) B"
      unfolding list_ex_iff by blast
    have "can_finish D L wb P (snd hb)"
      using Cons.prems(2) bst_mem_set[OF hb(2)] by blast
    then have "can_finish D L wb P (fst g)"
      using here hb(1) by blast
    then have "\<forall>x \<in> insert (fst g) (bst_set B). can_finish D L wb P x"
      using Cons.prems(2) by blast
    then show ?thesis
      using join_step_within by blast
  next
    case False
    with Cons.prems(2) show ?thesis by (simp only: if_False if_cancel)
  qed
  from Cons.IH[OF rest B'] show ?case
    by (simp only: fold_Cons comp_def)
qed

lemma join_rounds_can_finish:
  assumes G: "\<forall>g \<in> set G. \<forall>hb \<in> set (snd g). can_finish D L wb P (snd hb) \<longrightarrow> can_finish D L wb P (fst g)"
  shows "\<forall>x \<in> bst_set B. can_finish D L wb P x \<Longrightarrow> \<forall>x \<in> bst_set (join_rounds n G B). can_finish D L wb P x"
proof (induction n arbitrary: B)
  case 0
  then show ?case by (simp only: join_rounds.simps(1))
next
  case (Suc n)
  have "\<forall>x \<in> bst_set (join_round G B). can_finish D L wb P x"
    by (rule join_round_can_finish[OF G Suc.prems])
  then show ?case using Suc.IH[of "join_round G B"] Suc.prems
    by (simp only: join_rounds.simps(2) Let_def split: if_splits) blast
qed

lemma progress_check_can_finish:
  assumes ok: "dom_ok D L P" and pc: "progress_check D L wb P V" and a: "a \<in> bst_set V"
  shows "can_finish D L wb P a"
proof -
  let ?as = "bst_list V"
  have G: "\<forall>g \<in> set (succ_graph D L wb P ?as). \<forall>hb \<in> set (snd g). can_finish D L wb P (snd hb) \<longrightarrow> can_finish D L wb P (fst g)"
  proof (intro ballI impI)
    fix g hb
    assume g: "g \<in> set (succ_graph D L wb P ?as)" and hb: "hb \<in> set (snd g)" and f: "can_finish D L wb P (snd hb)"
    from g obtain a where a: "g = (a, map (\<lambda>b. (hash b, b)) (succs D L wb P a))"
      unfolding succ_graph_def by (simp only: set_map) blast
    from hb a obtain b where b: "b \<in> set (succs D L wb P a)" "hb = (hash b, b)"
      by (simp only: snd_conv set_map) blast
    have "can_finish D L wb P b" using f b(2) by (simp only: snd_conv)
    then have "can_finish D L wb P a" by (rule succ_can_finish[OF ok b(1)])
    then show "can_finish D L wb P (fst g)" using a by (simp only: fst_conv)
  qed
  have "\<forall>x \<in> bst_set (join_rounds (length ?as) (succ_graph D L wb P ?as) (finals_tree D L P ?as)). can_finish D L wb P x"
    by (rule join_rounds_can_finish[OF G finals_tree_can_finish[OF ok]])
  moreover have "bst_mem (hash a) a (join_rounds (length ?as) (succ_graph D L wb P ?as) (finals_tree D L P ?as))"
    using pc a unfolding progress_check_def Let_def set_bst_list by blast
  ultimately show ?thesis
    using bst_mem_set by blast
qed

section \<open>Soundness on one program\<close>

text \<open>outcomes_check of Hrf_Closure without hrf's count of states, and with
  the progress check.\<close>
definition sound_check ::
  "nat \<Rightarrow> dom \<Rightarrow> layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> (addr \<Rightarrow> int) \<Rightarrow> obs list \<Rightarrow> int list list \<Rightarrow> bool" where
  "sound_check k D L wb P m os vs \<longleftrightarrow> dom_ok D L P \<and> obs_ok D os \<and>
     (let a0 = enc D (initial m) in
      case explore k (succs D L wb P) [a0] (bst_ins (hash a0) a0 Tip) of
        None \<Rightarrow> False
      | Some V \<Rightarrow> bst_mem (hash a0) a0 V \<and> closed D L wb P V \<and> finals_within D L P os vs V
                  \<and> progress_check D L wb P V)"

text \<open>[RSP15] sec. 5's soundness on one program and placement: every final
  state the machine reaches shows one of the outcomes vs, and from every
  reachable state a final one is reachable (evaluate the premise by eval).\<close>
theorem machine_sound:
  assumes chk: "sound_check k D L wb P m os vs"
  shows "\<forall>s \<in> reachable L wb P (initial m). is_final L P s \<longrightarrow> map (obs_val s) os \<in> set vs"
    and "deadlock_free L wb P (initial m)"
proof -
  define a0 where "a0 = enc D (initial m)"
  obtain V where ok: "dom_ok D L P" and oo: "obs_ok D os"
    and ex: "explore k (succs D L wb P) [a0] (bst_ins (hash a0) a0 Tip) = Some V"
    and V: "bst_mem (hash a0) a0 V" "closed D L wb P V" "finals_within D L P os vs V" "progress_check D L wb P V"
    using chk unfolding sound_check_def Let_def a0_def[symmetric] by (auto split: option.splits)
  have "outcomes_check k D L wb P m os vs (length (filter (\<lambda>a. \<not> is_final_on (addrs P) L P (conc D a)) (bst_list V)))"
    unfolding outcomes_check_def Let_def a0_def[symmetric] using ok oo ex V by simp
  then show "\<forall>s \<in> reachable L wb P (initial m). is_final L P s \<longrightarrow> map (obs_val s) os \<in> set vs"
    by (rule machine_outcomes_within)
  show "deadlock_free L wb P (initial m)"
    unfolding deadlock_free_def
  proof
    fix s assume s: "s \<in> reachable L wb P (initial m)"
    have "enc D s \<in> bst_set V"
      by (rule reachable_in_closed[OF ok _ V(2) s]) (use V(1) bst_mem_set a0_def in simp)
    then have "can_finish D L wb P (enc D s)"
      by (rule progress_check_can_finish[OF ok V(4)])
    then obtain s' where "(s, s') \<in> (step L wb P)\<^sup>*" "is_final L P s'"
      using reachable_clean_outside[OF s] unfolding can_finish_def by blast
    then show "\<exists>s' \<in> reachable L wb P s. is_final L P s'"
      by (auto simp: reachable_def)
  qed
qed

section \<open>Soundness on a list of programs\<close>

text \<open>A family of programs, each with its placement, its finite part, its
  observations and its allowed outcomes, checked by sound_check under both
  write-back policies (evaluate the premise by eval): machine_sound on each.
  C is the compiler (Hrf_Mapping's compile of a scheme).\<close>
lemma sound_on_members:
  assumes chk: "list_all (\<lambda>(L, D, P, os, vs). sound_check k D L Fifo (C P) (src_init P) os vs
                    \<and> sound_check k D L Any (C P) (src_init P) os vs) F"
  shows "\<forall>(L, D, P, os, vs) \<in> set F. \<forall>wb.
           (\<forall>s \<in> reachable L wb (C P) (initial (src_init P)). is_final L (C P) s \<longrightarrow> map (obs_val s) os \<in> set vs)
           \<and> deadlock_free L wb (C P) (initial (src_init P))"
proof -
  have "\<forall>wb. (\<forall>s \<in> reachable L wb (C P) (initial (src_init P)). is_final L (C P) s \<longrightarrow> map (obs_val s) os \<in> set vs)
           \<and> deadlock_free L wb (C P) (initial (src_init P))"
    if m: "(L, D, P, os, vs) \<in> set F" for L D P os vs
  proof
    fix wb
    have both: "sound_check k D L Fifo (C P) (src_init P) os vs \<and> sound_check k D L Any (C P) (src_init P) os vs"
      using chk m unfolding list_all_iff by fastforce
    show "(\<forall>s \<in> reachable L wb (C P) (initial (src_init P)). is_final L (C P) s \<longrightarrow> map (obs_val s) os \<in> set vs)
           \<and> deadlock_free L wb (C P) (initial (src_init P))"
      using machine_sound[OF conjunct1[OF both]] machine_sound[OF conjunct2[OF both]] by (cases wb) auto
  qed
  then show ?thesis by auto
qed

section \<open>A family's verdicts as a source model\<close>

text \<open>What an observation shows of an outcome (obs_val on a state's
  registers and memory).\<close>
fun obs_of :: "outcome \<Rightarrow> obs \<Rightarrow> int" where
  "obs_of (rs, m) (OReg t r) = rs t r"
| "obs_of (rs, m) (OMem x) = m x"

lemma obs_of_state: "obs_of (regs s, mem s) = obs_val s"
proof
  fix ob show "obs_of (regs s, mem s) ob = obs_val s ob"
    by (cases ob) simp_all
qed

text \<open>The source model a family gives: a program, placed as a member is,
  may show what that member's outcome list allows (what hrf's source model
  allows); no member is racy.\<close>
definition family_allowed ::
  "(layout \<times> dom \<times> src_program \<times> obs list \<times> int list list) list \<Rightarrow> layout \<Rightarrow> src_program \<Rightarrow> outcome set" where
  "family_allowed F L P =
     {oc. \<forall>(L', D, P', os, vs) \<in> set F. L' = L \<and> P' = P \<longrightarrow> map (obs_of oc) os \<in> set vs}"

text \<open>Hrf_Mapping's soundness on one program (sound_on of the locale
  source_model), for every member of a checked family, with the family's
  verdicts as the source model.\<close>
lemma sound_on_family:
  assumes chk: "list_all (\<lambda>(L, D, P, os, vs). sound_check k D L Fifo (compile S P) (src_init P) os vs
                    \<and> sound_check k D L Any (compile S P) (src_init P) os vs) F"
  shows "\<forall>(L, D, P, os, vs) \<in> set F. \<forall>wb. source_model.sound_on (family_allowed F) (\<lambda>_ _. False) L wb S P"
proof -
  have each: "\<forall>(L, D, P, os, vs) \<in> set F. \<forall>wb.
      (\<forall>s \<in> reachable L wb (compile S P) (initial (src_init P)).
          is_final L (compile S P) s \<longrightarrow> map (obs_val s) os \<in> set vs)
      \<and> deadlock_free L wb (compile S P) (initial (src_init P))"
    by (rule sound_on_members[OF chk])
  have "source_model.sound_on (family_allowed F) (\<lambda>_ _. False) L wb S P"
    if m: "(L, D, P, os, vs) \<in> set F" for L D P os vs wb
  proof -
    have within: "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> family_allowed F L P"
    proof
      fix oc assume "oc \<in> outcomes L wb (compile S P) (initial (src_init P))"
      then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
        and fin: "is_final L (compile S P) s" and oc: "oc = (regs s, mem s)"
        unfolding outcomes_def by auto
      have "map (obs_of oc) xs \<in> set ys" if m': "(L, D', P, xs, ys) \<in> set F" for D' xs ys
      proof -
        have "map (obs_val s) xs \<in> set ys"
          using each m' s fin by fastforce
        then show ?thesis
          unfolding oc obs_of_state .
      qed
      then show "oc \<in> family_allowed F L P"
        unfolding family_allowed_def by blast
    qed
    have "deadlock_free L wb (compile S P) (initial (src_init P))"
      using each m by fastforce
    then show ?thesis
      using within by (simp add: source_model.sound_on_def)
  qed
  then show ?thesis by blast
qed

end
