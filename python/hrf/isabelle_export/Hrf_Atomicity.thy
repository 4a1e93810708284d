(* hrf base theory: RMW atomicity in the coherence a machine run exhibits
   (step (3) of docs/isabelle.md's plan for [RSP15]'s soundness theorem, its
   RMW part). An increment performed at the L2 reads the L2's line, on one
   device the last write to reach it (Hrf_Coherence's l2_ok), and puts its
   write there at once: every other write of the location is then settled
   before the write it read from or after its own. So in the candidate a
   final state exhibits (Hrf_Exhibit's), no write comes between an RMW
   performed at the L2 and the write it reads from: for every program of
   any length and thread count, racy or not, on every layout of one device,
   under both write-back policies. Written by hand, every proof complete. *)
theory Hrf_Atomicity
  imports Hrf_Happens
begin

section \<open>RMW atomicity\<close>

text \<open>[HRF14] sec. 4, [HRFR15] App. A: no write comes, in coherence, between
  the write an RMW reads from and the RMW's own write (herd's
  rmw & (fr; co) empty).\<close>
definition rmw_atomic :: "src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "rmw_atomic P rfw cos t k \<longleftrightarrow> (\<forall>w. (rfw (Acc t k False), w) \<notin> cos \<or> (w, Acc t k True) \<notin> cos)"

text \<open>The RMWs a scheme performs at the L2: those whose operation is one of B
  (Hrf_Simulation's src_access compiles them to INCL2).\<close>
definition at_l2 :: "src_op set \<Rightarrow> src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "at_l2 B P t k \<longleftrightarrow> acc P t k True \<and> (\<exists>a r x. ins P t k = Op a r x \<and> a \<in> B)"

text \<open>An RMW's two events: its read and its write, of one location.\<close>
lemma rmw_parts:
  assumes "acc P t k True"
  shows "is_wr P (Acc t k True)" "is_rd P (Acc t k False)" "sloc P (Acc t k False) = sloc P (Acc t k True)"
proof -
  obtain sc rm r x where c: "ins P t k = Op (FetchInc sc rm) r x"
    using assms wr_part[of "ins P t k"] rd_part[of "ins P t k" True] by (auto simp: acc_def)
  then show "is_wr P (Acc t k True)" "is_rd P (Acc t k False)" "sloc P (Acc t k False) = sloc P (Acc t k True)"
    using assms by (simp_all add: acc_def)
qed

text \<open>The invariant: a performed RMW at the L2 has reached the L2, and every
  other write of its location is settled before the write it read from, or
  after its own write.\<close>
definition at2_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_op set \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "at2_ok L S B P s g \<longleftrightarrow> (\<forall>t k. at_l2 B P t k \<and> done_ev S P s (Acc t k True) \<longrightarrow>
     ga2 g (Acc t k True) \<noteq> None \<and> (\<forall>x w. sloc P (Acc t k True) = Some x \<and> wx S P s x w \<longrightarrow>
       w = grf g (Acc t k False) \<or> w = Acc t k True \<or> sb L g w (grf g (Acc t k False)) \<or> sb L g (Acc t k True) w))"

lemma at2_ok_initial: "at2_ok L S B P (initial (src_init P)) (ghost0 P)"
  by (simp add: at2_ok_def)

lemma wx_done: "wx S P s x e \<Longrightarrow> done_ev S P s e"
  by (cases e) (auto simp: wx_def)

lemma rmw_wx:
  assumes ei: "ev_inv S P s g" and a: "acc P t k True" and d: "done_ev S P s (Acc t k True)"
    and x: "sloc P (Acc t k True) = Some x"
  shows "wx S P s x (Acc t k True)" "wx S P s x (grf g (Acc t k False))"
proof -
  note p = rmw_parts[OF a]
  show "wx S P s x (Acc t k True)" using wr_wx[OF p(1) d x] .
  have "done_ev S P s (Acc t k False)" using d by simp
  then show "wx S P s x (grf g (Acc t k False))" using grf_wx[OF ei p(2)] p(3) x by simp
qed

text \<open>A write that has reached the L2 is settled before a write performed
  after every time given so far, in an L1 or at the L2 of its device.\<close>
lemma sb_after_l2:
  assumes e: "ga2 g e \<noteq> None" "the (ga2 g e) < c" and w: "ga3 g w = None" "c < gt g w"
    "ga2 g w = None \<or> ga2 g w = Some (gt g w)" and d: "dv L e = dv L w"
  shows "sb L g e w"
  using assms by (cases "ga3 g e") (auto simp: sb_def)

section \<open>The invariant is kept\<close>

lemma at2_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and ei: "ev_inv S P s g"
    and at: "at2_ok L S B P s g"
  shows "at2_ok L S B P s' g'"
  unfolding at2_ok_def
proof (intro allI impI conjI)
  fix t k assume a: "at_l2 B P t k \<and> done_ev S P s' (Acc t k True)"
  have d: "done_ev S P s (Acc t k True)" using a done_same[OF pc] by simp
  have ac: "acc P t k True" using a by (simp add: at_l2_def)
  have m': "grf g' = grf g" "\<forall>e. ga2 g e \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None" using m by (simp_all add: env_mono_def)
  show "ga2 g' (Acc t k True) \<noteq> None" using at a d m'(2) unfolding at2_ok_def by blast
  fix x w assume xw: "sloc P (Acc t k True) = Some x \<and> wx S P s' x w"
  have w: "wx S P s x w" using xw wx_same[OF pc] by simp
  note ws = rmw_wx[OF ei ac d xw[THEN conjunct1]]
  have "w = grf g (Acc t k False) \<or> w = Acc t k True \<or> sb L g w (grf g (Acc t k False)) \<or> sb L g (Acc t k True) w"
    using at a d xw w unfolding at2_ok_def by blast
  then show "w = grf g' (Acc t k False) \<or> w = Acc t k True \<or> sb L g' w (grf g' (Acc t k False)) \<or> sb L g' (Acc t k True) w"
  proof (elim disjE)
    assume "sb L g w (grf g (Acc t k False))"
    then have "sb L g' w (grf g (Acc t k False))" using k w ws(2) unfolding sb_keep_def by blast
    then show ?thesis using m'(1) by simp
  next
    assume "sb L g (Acc t k True) w"
    then have "sb L g' (Acc t k True) w" using k w ws(1) unfolding sb_keep_def by blast
    then show ?thesis by simp
  qed (simp_all add: m'(1))
qed

text \<open>A step of a thread: an increment at the L2 reads the L2's line, after
  every write that has reached the L2 (one device: sb_l2_line) and before
  every write waiting in an L1; a write the step performs comes after
  every RMW at the L2 performed before.\<close>
lemma at2_thread:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and od: "one_dev L P"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and l2: "l2_ok L S P s g" and at: "at2_ok L S B P s g"
  shows "at2_ok L S B P s' g'"
proof -
  note se = step_events[OF inv t st rows gs gv]
  define i where "i = instrs (compile S P) t ! pc s t"
  define k0 where "k0 = kd S P s t"
  have ti: "time_inv S P s g" and ei: "ev_inv S P s g" and li: "lines_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have c0: "0 < clk g" using l2 by (simp add: l2_ok_def)
  have gs2: "\<forall>e. is_wr P e \<and> done_ev S P s' e \<and> \<not> done_ev S P s e \<longrightarrow> clk g < gt g' e \<and> ga3 g' e = None"
    using gs by (simp add: gstep_def)
  \<comment> \<open>two thread events of the program sit on one device\<close>
  have dv_eq: "dv L (Acc u j p) = dv L (Acc u' j' p')" if "u \<in> src_threads P" "u' \<in> src_threads P" for u j p u' j' p'
  proof -
    have "dev_of L (wg_of L u) = dev_of L (wg_of L u')" using od that unfolding one_dev_def by blast
    then show ?thesis by (simp add: dv_def)
  qed
  \<comment> \<open>a performed write keeps its times, and sb between performed writes holds as before\<close>
  have old_sb: "sb L g' a b = sb L g a b" if "done_ev S P s a" "done_ev S P s b" for a b
    using se(4)[OF that(1)] se(4)[OF that(2)] by (intro sb_cong) simp_all
  \<comment> \<open>the one write a step performs, if any\<close>
  have new_w: "\<exists>p. w = Acc t k0 p" if "wx S P s' y w" "\<not> wx S P s y w" for y w
    using that se(1)[of w] unfolding k0_def by (auto simp: wx_def)
  show ?thesis
    unfolding at2_ok_def
  proof (intro allI impI conjI)
    fix u j assume a: "at_l2 B P u j \<and> done_ev S P s' (Acc u j True)"
    have ac: "acc P u j True" using a by (simp add: at_l2_def)
    note p = rmw_parts[OF ac]
    have u: "u \<in> src_threads P" using ac by (simp add: acc_def)
    obtain x where x: "sloc P (Acc u j True) = Some x" using wr_loc[OF p(1)] by blast
    \<comment> \<open>a new RMW at the L2 is the step's increment at the L2\<close>
    have newrmw: "u = t \<and> j = k0 \<and> grf g' (Acc u j False) = h2 g (dev_of L (wg_of L t)) x
        \<and> readable (l2 s (dev_of L (wg_of L t)) x) \<and> ga2 g' (Acc u j True) = Some (gt g' (Acc u j True))"
      if n: "\<not> done_ev S P s (Acc u j True)"
    proof -
      have uj: "u = t" "j = k0" and vis: "visible i" using se(1)[OF _ n] a unfolding k0_def i_def by auto
      have ik: "i = src_access B (src_code P t ! k0)" using se(2) vis unfolding i_def k0_def by blast
      obtain a' r' x' where c: "ins P t k0 = Op a' r' x'" "a' \<in> B" using a uj by (auto simp: at_l2_def)
      have x': "x' = x" using x c uj by simp
      have ii: "i = INCL2 r' x" using ik c x' by (simp add: ins_def)
      have dr: "done_ev S P s' (Acc t k0 False)" using a uj by simp
      obtain y0 r0 where "sloc P (Acc t k0 False) = Some y0 \<and> (((i = LD r0 y0 \<or> i = INCL1 r0 y0)
          \<and> grf g' (Acc t k0 False) = h1 g (wg_of L t) y0 \<and> readable (l1 s (wg_of L t) y0))
        \<or> (i = INCL2 r0 y0 \<and> grf g' (Acc t k0 False) = h2 g (dev_of L (wg_of L t)) y0
          \<and> readable (l2 s (dev_of L (wg_of L t)) y0)))"
        using se(6) p(2) dr uj unfolding i_def k0_def by blast
      then have rd: "grf g' (Acc t k0 False) = h2 g (dev_of L (wg_of L t)) x \<and> readable (l2 s (dev_of L (wg_of L t)) x)"
        using ii by auto
      have nd: "\<not> done_ev S P s (Acc t k0 True)" "done_ev S P s' (Acc t k0 True)" using n a uj by simp_all
      obtain y1 where "sloc P (Acc t k0 True) = Some y1 \<and> (\<exists>p. Acc t k0 True = Acc t k0 p)
        \<and> ((((\<exists>v. i = ST v y1) \<or> (\<exists>r. i = INCL1 r y1)) \<and> ga2 g' (Acc t k0 True) = None \<and> h1 g' (wg_of L t) y1 = Acc t k0 True)
          \<or> ((\<exists>r. i = INCL2 r y1) \<and> ga2 g' (Acc t k0 True) = Some (gt g' (Acc t k0 True))
             \<and> h2 g' (dev_of L (wg_of L t)) y1 = Acc t k0 True))"
        using se(7)[OF _ nd(2) nd(1)] p(1) uj unfolding i_def k0_def by blast
      then have "ga2 g' (Acc t k0 True) = Some (gt g' (Acc t k0 True))" using ii by auto
      then show ?thesis using uj rd by simp
    qed
    show "ga2 g' (Acc u j True) \<noteq> None"
    proof (cases "done_ev S P s (Acc u j True)")
      case True
      then show ?thesis using at a se(4) unfolding at2_ok_def by metis
    next
      case False
      then show ?thesis using newrmw by blast
    qed
    fix y w assume yw: "sloc P (Acc u j True) = Some y \<and> wx S P s' y w"
    have y: "y = x" using x yw by simp
    have wy: "wx S P s' x w" using yw y by simp
    have ex: "wx S P s x (Acc u j True)" if "done_ev S P s (Acc u j True)" using wr_wx[OF p(1) that x] .
    show "w = grf g' (Acc u j False) \<or> w = Acc u j True \<or> sb L g' w (grf g' (Acc u j False)) \<or> sb L g' (Acc u j True) w"
    proof (cases "done_ev S P s (Acc u j True)")
      case old: True
      have dr: "done_ev S P s (Acc u j False)" using old by simp
      have gr: "grf g' (Acc u j False) = grf g (Acc u j False)" using se(3)[OF dr] .
      have wg: "wx S P s x (grf g (Acc u j False))" using rmw_wx(2)[OF ei ac old x] .
      have ata: "at_l2 B P u j \<and> done_ev S P s (Acc u j True)" using a old by blast
      have a2: "ga2 g (Acc u j True) \<noteq> None" using at ata unfolding at2_ok_def by blast
      show ?thesis
      proof (cases "wx S P s x w")
        case True
        then have "w = grf g (Acc u j False) \<or> w = Acc u j True \<or> sb L g w (grf g (Acc u j False)) \<or> sb L g (Acc u j True) w"
          using at ata x unfolding at2_ok_def by blast
        then show ?thesis using old_sb[OF wx_done[OF True] wx_done[OF wg]] old_sb[OF old wx_done[OF True]] gr by auto
      next
        case False
        obtain p' where wp': "w = Acc t k0 p'" using new_w[OF wy False] by blast
        have iw: "is_wr P w" "done_ev S P s' w" "\<not> done_ev S P s w" using wy False by (auto simp: wx_def wp')
        have w3: "clk g < gt g' w" "ga3 g' w = None" using gs2 iw by blast+
        obtain y1 where "sloc P w = Some y1 \<and> (\<exists>p. w = Acc t k0 p)
          \<and> ((((\<exists>v. i = ST v y1) \<or> (\<exists>r. i = INCL1 r y1)) \<and> ga2 g' w = None \<and> h1 g' (wg_of L t) y1 = w)
            \<or> ((\<exists>r. i = INCL2 r y1) \<and> ga2 g' w = Some (gt g' w) \<and> h2 g' (dev_of L (wg_of L t)) y1 = w))"
          using se(7)[OF iw] unfolding i_def k0_def by blast
        then have w2: "ga2 g' w = None \<or> ga2 g' w = Some (gt g' w)" by blast
        have "the (ga2 g (Acc u j True)) < clk g" using time_perf[OF ti ex[OF old]] a2 by auto
        moreover have "dv L (Acc u j True) = dv L w" using dv_eq[OF u t] wp' by simp
        ultimately have "sb L g' (Acc u j True) w"
          using sb_after_l2[OF _ _ w3(2,1) w2] a2 se(4)[OF old] by simp
        then show ?thesis by blast
      qed
    next
      case new: False
      note nr = newrmw[OF new]
      define d where "d = dev_of L (wg_of L t)"
      have rd: "readable (l2 s d x)" using nr by (simp add: d_def)
      show ?thesis
      proof (cases "w = Acc u j True")
        case False
        have w: "wx S P s x w"
        proof (rule ccontr)
          assume nw: "\<not> wx S P s x w"
          obtain p' where wp': "w = Acc t k0 p'" using new_w[OF wy nw] by blast
          have "is_wr P w" using wy nw by (auto simp: wx_def wp')
          then have "p' = True" using wp' ac nr wr_part[of "ins P t k0"] rd_part[of "ins P t k0" True]
            by (cases p') (auto simp: acc_def)
          then show False using False wp' nr by simp
        qed
        have ni: "\<forall>z. w \<noteq> Init z \<Longrightarrow> \<exists>u' j' p'. w = Acc u' j' p' \<and> u' \<in> src_threads P"
          using w by (cases w) (auto simp: wx_def acc_def)
        show ?thesis
        proof (cases "ga2 g w = None")
          case False
          have "sb L g w (h2 g d x)" using sb_l2_line[OF inv l2 od t w False] rd by (simp add: d_def)
          then have "sb L g' w (h2 g d x)" using old_sb[OF wx_done[OF w] wx_done[OF h2_wx[OF li rd]]] by simp
          then show ?thesis using nr[THEN conjunct2, THEN conjunct2, THEN conjunct1] by (simp add: d_def)
        next
          case True
          have nI: "\<forall>z. w \<noteq> Init z" using True ti by (auto simp: time_inv_def)
          have w3: "ga3 g w = None" using time_perf[OF ti w nI] True by blast
          obtain u' j' p' where wu: "w = Acc u' j' p'" "u' \<in> src_threads P" using ni[OF nI] by blast
          have e3: "ga3 g' (Acc u j True) = None" using gs2 p(1) a new by blast
          have "ga2 g' w = None" "ga3 g' w = None" using se(4)[OF wx_done[OF w]] True w3 by simp_all
          moreover have "dv L (Acc u j True) = dv L w" using dv_eq[OF u wu(2)] wu(1) by simp
          ultimately have "sb L g' (Acc u j True) w" using e3 nr by (auto simp: sb_def)
          then show ?thesis by blast
        qed
      qed simp
    qed
  qed
qed

section \<open>The theorem\<close>

lemma at2_reachable:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
    and od: "one_dev L P"
  shows "\<exists>g. ginv L S P s g \<and> oinv L S P s g \<and> l2_ok L S P s g \<and> at2_ok L S B P s g"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using reach by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    show ?case by (intro exI[of _ "ghost0 P"] conjI ginv_initial oinv_initial l2_ok_initial at2_ok_initial)
  next
    case (step s1 s2)
    then obtain g where g: "ginv L S P s1 g" "oinv L S P s1 g" "l2_ok L S P s1 g" "at2_ok L S B P s1 g" by blast
    have "threads (compile S P) = src_threads P" by (simp add: compile_def)
    then consider (thr) t where "t \<in> src_threads P" "step_thread L (compile S P) t s1 = Some s2"
      | (env) "s2 \<in> env_step L wb s1"
      using step.hyps(2) unfolding step_def by blast
    then show ?case
    proof cases
      case thr
      obtain g' where g': "ginv L S P s2 g'" "oinv L S P s2 g'" "l2_ok L S P s2 g'"
          "gstep P (done_ev S P s1) (done_ev S P s2) (instrs (compile S P) t ! pc s1 t) g g'"
          "gview L t (kd S P s1 t) (instrs (compile S P) t ! pc s1 t) g g'"
        using oinv_thread[OF g(1,2) thr rows wp] g(3) by blast
      have "at2_ok L S B P s2 g'" by (rule at2_thread[OF g(1) thr rows(1-3) od g'(4,5) g(3,4)])
      then show ?thesis using g' by blast
    next
      case env
      have c0: "0 < clk g" using g(3) by (simp add: l2_ok_def)
      obtain g' where g': "ginv L S P s2 g'" "oinv L S P s2 g'" "l2_ok L S P s2 g'" "env_mono g g'"
          "sb_keep L S P s1 g g'"
        using oinv_env[OF g(1,2) env] g(3) c0 by blast
      have pc: "pc s2 = pc s1" using env_step_regs_pc_locks[OF env] by simp
      have ei: "ev_inv S P s1 g" using g(1) by (simp add: ginv_def)
      have "at2_ok L S B P s2 g'" using at2_env[OF pc g'(4,5) ei g(4)] .
      then show ?thesis using g' by blast
    qed
  qed
qed

text \<open>At a final state, sb is the exhibited coherence: an RMW at the L2 is atomic.\<close>
lemma final_at2:
  assumes inv: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and at: "at2_ok L S B P s g"
    and a: "at_l2 B P t k"
  shows "rmw_atomic P (grf g) (run_co P g) t k"
  unfolding rmw_atomic_def
proof (intro allI)
  fix w
  note ff = final_facts[OF inv fin wp rows]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  have ac: "acc P t k True" using a by (simp add: at_l2_def)
  note p = rmw_parts[OF ac]
  have d: "done_ev S P s (Acc t k True)" using ff(2)[of "Acc t k True"] ac by simp
  obtain x where x: "sloc P (Acc t k True) = Some x" using wr_loc[OF p(1)] by blast
  have xl: "x \<in> src_locs P" using ev_src_loc p(1) x by blast
  note ws = rmw_wx[OF ei ac d x]
  define r where "r = grf g (Acc t k False)"
  show "(grf g (Acc t k False), w) \<notin> run_co P g \<or> (w, Acc t k True) \<notin> run_co P g"
  proof (rule ccontr)
    assume "\<not> ?thesis"
    then have c: "(r, w) \<in> run_co P g" "(w, Acc t k True) \<in> run_co P g" by (simp_all add: r_def)
    then have "is_wr P w" "sloc P w = Some x" using x by (auto simp: run_co_def)
    then have w: "wx S P s x w" using ff(3) by blast
    have kl: "klt (key g r) (key g w)" "klt (key g w) (key g (Acc t k True))" using c by (simp_all add: run_co_def)
    have "w = r \<or> w = Acc t k True \<or> sb L g w r \<or> sb L g (Acc t k True) w"
      using at a d x w unfolding at2_ok_def r_def by blast
    then show False
    proof (elim disjE)
      assume "sb L g w r"
      then have "w = r \<or> (w, r) \<in> run_co P g" using final_sb[OF inv fin wp rows w ws(2)[folded r_def] xl] by blast
      then show False using kl klt_irrefl klt_asym by (auto simp: run_co_def)
    next
      assume "sb L g (Acc t k True) w"
      then have "Acc t k True = w \<or> (Acc t k True, w) \<in> run_co P g" using final_sb[OF inv fin wp rows ws(1) w xl] by blast
      then show False using kl klt_irrefl klt_asym by (auto simp: run_co_def)
    qed (use kl klt_irrefl in auto)
  qed
qed

text \<open>For every program of any length and thread count, racy or not, on
  every layout of one device, under both write-back policies, compiled by
  rows whose one data instruction is an L1 access or an increment at the
  L2 that a flush of the L1 precedes (Hrf_Coherence's l2_flushed): every
  final state shows the outcome of a candidate (Hrf_Exhibit's) in which
  every RMW performed at the L2 is atomic.\<close>
theorem machine_candidate_l2_atomic:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B"
    and wp: "well_placed L P" and od: "one_dev L P"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> (\<forall>t k. at_l2 B P t k \<longrightarrow> rmw_atomic P (grf g) (run_co P g) t k)"
proof -
  obtain g where g: "ginv L S P s g" "at2_ok L S B P s g" using at2_reachable[OF reach rows wp od] by blast
  then show ?thesis using final_at2[OF g(1) fin wp rows(1-3) g(2)] final_candidate[OF rows(1-3) wp g(1) fin] by blast
qed

corollary machine_outcomes_l2_atomic:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "well_placed L P" "one_dev L P"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> {ob. \<exists>rfw cos v. cand_ok P rfw cos v \<and> is_outcome P cos v ob
    \<and> (\<forall>t k. at_l2 B P t k \<longrightarrow> rmw_atomic P rfw cos t k)}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
      "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  show "ob \<in> {ob. \<exists>rfw cos v. cand_ok P rfw cos v \<and> is_outcome P cos v ob \<and> (\<forall>t k. at_l2 B P t k \<longrightarrow> rmw_atomic P rfw cos t k)}"
    using machine_candidate_l2_atomic[OF assms s(1,2)] s(3) by blast
qed

end
