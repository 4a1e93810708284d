(* hrf base theory: RMW atomicity in the coherence a machine run exhibits
   (step (3) of docs/isabelle.md's plan for [RSP15]'s soundness theorem, its
   RMW part). An increment performed at the L2 reads the L2's line, on one
   device the last write to reach it (Hrf_Coherence's l2_ok), and puts its
   write there at once: every other write of the location is then settled
   before the write it read from or after its own. So in the candidate a
   final state exhibits (Hrf_Exhibit's), no write comes between an RMW
   performed at the L2 and the write it reads from: for every program of
   any length and thread count, racy or not, on every layout of one device,
   under both write-back policies. An RMW performed in the L1 is atomic too
   where the program is race-free (only its work-group accesses its
   location) and the code takes the rmw locks as rsp-new's rows do: a
   device RMW flushes the L1 under the lock, so the L1 RMWs before it have
   reached the L2 (flk_ok), and invalidates it under the lock, so an L1 RMW
   reads a line settled after every write (ln_ok); a remote store of
   another work-group, promoted to reach it, is made under every rmw lock
   of the device between a flush of the device's L1s and its own flush
   and invalidation of them (rs_code, rs_ok). Written by hand, every
   proof complete. *)
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

text \<open>An RMW and a conflicting access sit on one device: where conflicting
  accesses do (dev_conflicts), or where those of two devices are
  all-devices atomics (dev_sys) and no RMW is at all-devices scope (the
  machine has none at memory: mem_rows).\<close>
definition rmw_local :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "rmw_local L P \<longleftrightarrow> (\<forall>t k e. acc P t k True \<and> (is_wr P e \<or> is_rd P e) \<and> sloc P e = sloc P (Acc t k True)
     \<and> ewg L e \<noteq> None \<longrightarrow> dv L e = dv L (Acc t k True))"

lemma dev_conflicts_rmw: "dev_conflicts L P \<Longrightarrow> rmw_local L P"
  unfolding rmw_local_def
proof (intro allI impI)
  fix t k e assume dc: "dev_conflicts L P"
    and a: "acc P t k True \<and> (is_wr P e \<or> is_rd P e) \<and> sloc P e = sloc P (Acc t k True) \<and> ewg L e \<noteq> None"
  have "is_wr P (Acc t k True)" using rmw_parts(1) a by blast
  then have "dv L (Acc t k True) = dv L e"
    using dc[unfolded dev_conflicts_def, rule_format, of "Acc t k True" e] a by auto
  then show "dv L e = dv L (Acc t k True)" by simp
qed

lemma dev_sys_rmw:
  assumes ds: "dev_sys L P" and ops: "ops_of P \<subseteq> A \<union> B" and nsr: "\<forall>a \<in> A \<union> B. \<forall>rm. a \<noteq> FetchInc AllDevices rm"
  shows "rmw_local L P"
  unfolding rmw_local_def
proof (intro allI impI)
  fix t k e
  assume a: "acc P t k True \<and> (is_wr P e \<or> is_rd P e) \<and> sloc P e = sloc P (Acc t k True) \<and> ewg L e \<noteq> None"
  obtain sc rm r x where c: "ins P t k = Op (FetchInc sc rm) r x"
    using a wr_part[of "ins P t k"] rd_part[of "ins P t k" True] by (auto simp: acc_def)
  have t: "t \<in> src_threads P" "k < length (src_code P t)" using a by (auto simp: acc_def)
  have "src_code P t ! k \<in> set (src_code P t)" using t(2) by simp
  then have "FetchInc sc rm \<in> ops_of P" using t(1) c by (force simp: ops_of_def op_of_def ins_def)
  then have "sc \<noteq> AllDevices" using ops nsr by blast
  then have ns: "\<not> sys_ev P (Acc t k True)" using c by (simp add: sys_ev_def)
  have wa: "is_wr P (Acc t k True)" using rmw_parts(1) a by blast
  have "dv L (Acc t k True) = dv L e" using dv_sys[OF ds wa] a ns by (auto simp: disj_commute)
  then show "dv L e = dv L (Acc t k True)" by simp
qed

text \<open>So an RMW's write and a write of its location, or an access of its
  location and a write, sit on one device.\<close>
lemma rmw_wr_conflict:
  assumes rl: "rmw_local L P" and a: "is_wr P a" "sloc P a = Some x" "ewg L a \<noteq> None"
    and b: "wx S P s x b" "ewg L b \<noteq> None" and r: "\<exists>t k. a = Acc t k True"
  shows "dv L a = dv L b"
proof -
  obtain t k where ak: "a = Acc t k True" using r by blast
  have "acc P t k True" using a(1) ak by simp
  moreover have "is_wr P b" "sloc P b = Some x" using b by (auto simp: wx_def)
  ultimately show ?thesis using rl a(2) b(2) ak unfolding rmw_local_def by fastforce
qed

lemma rmw_conflict:
  assumes rl: "rmw_local L P" and a: "wx S P s x a"
    and b: "is_rd P b \<or> is_wr P b" "sloc P b = Some x" "sthread b = Some t" and r: "\<exists>k. b = Acc t k True"
  shows "a = Init x \<or> dv L a = Some (dev_of L (wg_of L t))"
proof (cases "a = Init x")
  case False
  obtain k where bk: "b = Acc t k True" using r by blast
  have w: "is_wr P a" "sloc P a = Some x" using a False by (auto simp: wx_def)
  obtain u j p where "a = Acc u j p" using w False a by (cases a) (auto simp: wx_def)
  then have "ewg L a \<noteq> None" by simp
  moreover have "acc P t k True" using b(1) bk by (auto dest: rd_part)
  ultimately have "dv L a = dv L b" using rl w b(2) bk unfolding rmw_local_def by fastforce
  then show ?thesis using bk by (simp add: dv_def)
qed simp

text \<open>Every other write of an RMW's location is settled before the write it
  read from, or after its own.\<close>
definition rmw_sb :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "rmw_sb L S P s g t k \<longleftrightarrow> (\<forall>x w. sloc P (Acc t k True) = Some x \<and> wx S P s x w \<longrightarrow>
     w = grf g (Acc t k False) \<or> w = Acc t k True \<or> sb L g w (grf g (Acc t k False)) \<or> sb L g (Acc t k True) w)"

text \<open>The invariant: a performed RMW at the L2 has reached the L2, and every
  other write of its location is settled before the write it read from, or
  after its own.\<close>
definition at2_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_op set \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "at2_ok L S B P s g \<longleftrightarrow> (\<forall>t k. at_l2 B P t k \<and> done_ev S P s (Acc t k True) \<longrightarrow>
     ga2 g (Acc t k True) \<noteq> None \<and> rmw_sb L S P s g t k)"

lemma at2_ok_initial: "at2_ok L S B P (initial (src_init P)) (ghost0 P)"
  by (simp add: at2_ok_def)

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

lemma rmw_sb_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and ei: "ev_inv S P s g"
    and ac: "acc P t k True" and d: "done_ev S P s (Acc t k True)" and r: "rmw_sb L S P s g t k"
  shows "rmw_sb L S P s' g' t k"
  unfolding rmw_sb_def
proof (intro allI impI)
  fix x w assume xw: "sloc P (Acc t k True) = Some x \<and> wx S P s' x w"
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have w: "wx S P s x w" using xw wx_same[OF pc] by simp
  note ws = rmw_wx[OF ei ac d xw[THEN conjunct1]]
  have "w = grf g (Acc t k False) \<or> w = Acc t k True \<or> sb L g w (grf g (Acc t k False)) \<or> sb L g (Acc t k True) w"
    using r xw w unfolding rmw_sb_def by blast
  then show "w = grf g' (Acc t k False) \<or> w = Acc t k True \<or> sb L g' w (grf g' (Acc t k False)) \<or> sb L g' (Acc t k True) w"
  proof (elim disjE)
    assume "sb L g w (grf g (Acc t k False))"
    then have "sb L g' w (grf g (Acc t k False))" using k w ws(2) unfolding sb_keep_def by blast
    then show ?thesis using gr by simp
  next
    assume "sb L g (Acc t k True) w"
    then have "sb L g' (Acc t k True) w" using k w ws(1) unfolding sb_keep_def by blast
    then show ?thesis by simp
  qed (simp_all add: gr)
qed

lemma at2_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and ei: "ev_inv S P s g"
    and at: "at2_ok L S B P s g"
  shows "at2_ok L S B P s' g'"
  unfolding at2_ok_def
proof (intro allI impI conjI)
  fix t k assume a: "at_l2 B P t k \<and> done_ev S P s' (Acc t k True)"
  have d: "done_ev S P s (Acc t k True)" using a done_same[OF pc] by simp
  have ac: "acc P t k True" using a by (simp add: at_l2_def)
  have m2: "\<forall>e. ga2 g e \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None" using m by (simp add: env_mono_def)
  show "ga2 g' (Acc t k True) \<noteq> None" using at a d m2 unfolding at2_ok_def by blast
  have "rmw_sb L S P s g t k" using at a d unfolding at2_ok_def by blast
  then show "rmw_sb L S P s' g' t k" using rmw_sb_env[OF pc m k ei ac d] by blast
qed

text \<open>A step of a thread: an increment at the L2 reads the L2's line, after
  every write that has reached the L2 (one device: sb_l2_line) and before
  every write waiting in an L1; a write the step performs comes after
  every RMW at the L2 performed before.\<close>
lemma at2_thread:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and rml: "rmw_local L P"
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
  \<comment> \<open>a performed write keeps its times, and sb between performed writes holds as before\<close>
  have old_sb: "sb L g' a b = sb L g a b" if "done_ev S P s a" "done_ev S P s b" for a b
    using se(4)[OF that(1)] se(4)[OF that(2)] by (intro sb_cong) simp_all
  \<comment> \<open>the one write a step performs, if any\<close>
  have new_w: "\<exists>p. w = Acc t k0 p" if "wx S P s' y w" "\<not> wx S P s y w" for y w
    using that se(1)[of w] unfolding k0_def by (auto simp: wx_def)
  show ?thesis
    unfolding at2_ok_def rmw_sb_def
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
          using at ata x unfolding at2_ok_def rmw_sb_def by blast
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
        moreover have "dv L (Acc u j True) = dv L w" using rmw_wr_conflict[OF rml p(1) x _ wy] wp' by simp
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
          have hd: "w = Init x \<or> dv L w = Some (dev_of L (wg_of L t))"
            using rmw_conflict[OF rml w, of "Acc u j True" t] p(1) x nr by simp
          have "sb L g w (h2 g d x)" using sb_l2_line[OF inv l2 hd w False] rd by (simp add: d_def)
          then have "sb L g' w (h2 g d x)" using old_sb[OF wx_done[OF w] wx_done[OF h2_wx[OF li rd]]] by simp
          then show ?thesis using nr[THEN conjunct2, THEN conjunct2, THEN conjunct1] by (simp add: d_def)
        next
          case True
          have nI: "\<forall>z. w \<noteq> Init z" using True ti by (auto simp: time_inv_def)
          have w3: "ga3 g w = None" using time_perf[OF ti w nI] True by blast
          obtain u' j' p' where wu: "w = Acc u' j' p'" "u' \<in> src_threads P" using ni[OF nI] by blast
          have e3: "ga3 g' (Acc u j True) = None" using gs2 p(1) a new by blast
          have "ga2 g' w = None" "ga3 g' w = None" using se(4)[OF wx_done[OF w]] True w3 by simp_all
          moreover have "dv L (Acc u j True) = dv L w" using rmw_wr_conflict[OF rml p(1) x _ w] wu(1) by simp
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
    and dcf: "dev_conflicts L P"
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
      have "at2_ok L S B P s2 g'" by (rule at2_thread[OF g(1) thr rows(1-3) dev_conflicts_rmw[OF dcf] g'(4,5) g(3,4)])
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

text \<open>At a final state, sb is the exhibited coherence.\<close>
lemma final_rmw_sb:
  assumes inv: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and ac: "acc P t k True" and r: "rmw_sb L S P s g t k"
  shows "rmw_atomic P (grf g) (run_co P g) t k"
  unfolding rmw_atomic_def
proof (intro allI)
  fix w
  note ff = final_facts[OF inv fin wp rows]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  note p = rmw_parts[OF ac]
  have d: "done_ev S P s (Acc t k True)" using ff(2)[of "Acc t k True"] ac by simp
  obtain x where x: "sloc P (Acc t k True) = Some x" using wr_loc[OF p(1)] by blast
  have xl: "x \<in> src_locs P" using ev_src_loc p(1) x by blast
  note ws = rmw_wx[OF ei ac d x]
  define rr where "rr = grf g (Acc t k False)"
  show "(grf g (Acc t k False), w) \<notin> run_co P g \<or> (w, Acc t k True) \<notin> run_co P g"
  proof (rule ccontr)
    assume "\<not> ?thesis"
    then have c: "(rr, w) \<in> run_co P g" "(w, Acc t k True) \<in> run_co P g" by (simp_all add: rr_def)
    then have "is_wr P w" "sloc P w = Some x" using x by (auto simp: run_co_def)
    then have w: "wx S P s x w" using ff(3) by blast
    have kl: "klt (key g rr) (key g w)" "klt (key g w) (key g (Acc t k True))" using c by (simp_all add: run_co_def)
    have "w = rr \<or> w = Acc t k True \<or> sb L g w rr \<or> sb L g (Acc t k True) w"
      using r x w unfolding rmw_sb_def rr_def by blast
    then show False
    proof (elim disjE)
      assume "sb L g w rr"
      then have "w = rr \<or> (w, rr) \<in> run_co P g" using final_sb[OF inv fin wp rows w ws(2)[folded rr_def] xl] by blast
      then show False using kl klt_irrefl klt_asym by (auto simp: run_co_def)
    next
      assume "sb L g (Acc t k True) w"
      then have "Acc t k True = w \<or> (Acc t k True, w) \<in> run_co P g" using final_sb[OF inv fin wp rows ws(1) w xl] by blast
      then show False using kl klt_irrefl klt_asym by (auto simp: run_co_def)
    qed (use kl klt_irrefl in auto)
  qed
qed

text \<open>So an RMW at the L2 is atomic.\<close>
lemma final_at2:
  assumes inv: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and at: "at2_ok L S B P s g"
    and a: "at_l2 B P t k"
  shows "rmw_atomic P (grf g) (run_co P g) t k"
proof -
  have ac: "acc P t k True" using a by (simp add: at_l2_def)
  have "done_ev S P s (Acc t k True)" using final_facts(2)[OF inv fin wp rows, of "Acc t k True"] ac by simp
  then have "rmw_sb L S P s g t k" using at a unfolding at2_ok_def by blast
  then show ?thesis using final_rmw_sb[OF inv fin wp rows ac] by blast
qed

text \<open>For every program of any length and thread count, racy or not, on
  every layout of one device, under both write-back policies, compiled by
  rows whose one data instruction is an L1 access or an increment at the
  L2 that a flush of the L1 precedes (Hrf_Coherence's l2_flushed): every
  final state shows the outcome of a candidate (Hrf_Exhibit's) in which
  every RMW performed at the L2 is atomic.\<close>
theorem machine_candidate_l2_atomic:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B"
    and wp: "well_placed L P" and dcf: "dev_conflicts L P"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> (\<forall>t k. at_l2 B P t k \<longrightarrow> rmw_atomic P (grf g) (run_co P g) t k)"
proof -
  obtain g where g: "ginv L S P s g" "at2_ok L S B P s g" using at2_reachable[OF reach rows wp dcf] by blast
  then show ?thesis using final_at2[OF g(1) fin wp rows(1-3) g(2)] final_candidate[OF rows(1-3) wp g(1) fin] by blast
qed

corollary machine_outcomes_l2_atomic:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "well_placed L P" "dev_conflicts L P"
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

section \<open>The RMWs performed in the L1: the fifo ahead of a locked flush\<close>

text \<open>The RMWs a scheme performs in the L1: those whose operation is not
  one of B.\<close>
definition at_l1 :: "src_op set \<Rightarrow> src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "at_l1 B P t k \<longleftrightarrow> acc P t k True \<and> (\<exists>a r x. ins P t k = Op a r x \<and> a \<notin> B)"

text \<open>Position n of code xs comes after a flush of the L1 made while an rmw
  lock was held, with only quiet instructions and no UNLKrmw between: the
  lock has been held since that flush.\<close>
definition lk_flushed :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "lk_flushed xs n \<longleftrightarrow> n \<le> length xs \<and> (\<exists>j < n. (\<exists>sc. xs ! j = FLUL1 sc) \<and> held xs j \<noteq> None
     \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc)))"

lemma hold_keep: "h \<noteq> None \<Longrightarrow> (\<forall>sc. i \<noteq> UNLKrmw sc) \<Longrightarrow> hold h i \<noteq> None"
  by (cases i) auto

lemma held_keep:
  assumes "held xs j \<noteq> None" "j \<le> n" "n \<le> length xs" "\<forall>m. j \<le> m \<and> m < n \<longrightarrow> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc)"
  shows "held xs n \<noteq> None"
  using assms
proof (induction n)
  case 0
  then show ?case by simp
next
  case (Suc n)
  show ?case
  proof (cases "j = Suc n")
    case True
    then show ?thesis using Suc.prems(1) by simp
  next
    case False
    then have jn: "j \<le> n" using Suc.prems(2) by simp
    have hn: "held xs n \<noteq> None" using Suc.IH[OF Suc.prems(1) jn] Suc.prems(3,4) by simp
    have nl: "n < length xs" using Suc.prems(3) by simp
    have "\<forall>sc. xs ! n \<noteq> UNLKrmw sc" using Suc.prems(4) jn by simp
    then show ?thesis using held_Suc[OF nl] hold_keep[OF hn] by simp
  qed
qed

lemma lk_flushed_held: "lk_flushed xs n \<Longrightarrow> held xs n \<noteq> None"
proof -
  assume a0: "lk_flushed xs n"
  then have a: "lk_flushed xs n" "n \<le> length xs" by (simp_all add: lk_flushed_def)
  then obtain j sc where j: "j < n" "xs ! j = FLUL1 sc" "held xs j \<noteq> None"
      "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc)"
    unfolding lk_flushed_def by blast
  have "\<forall>m. j \<le> m \<and> m < n \<longrightarrow> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc)"
  proof (intro allI impI)
    fix m sc assume m: "j \<le> m \<and> m < n"
    show "xs ! m \<noteq> UNLKrmw sc"
    proof (cases "m = j")
      case True
      then show ?thesis using j(2) by simp
    next
      case False
      then show ?thesis using j(4) m by simp
    qed
  qed
  then show ?thesis using held_keep[OF j(3) _ a(2)] j(1) by simp
qed

lemma lk_flushed_Suc:
  assumes "lk_flushed xs (Suc n)"
  shows "((\<exists>sc. xs ! n = FLUL1 sc) \<and> held xs n \<noteq> None)
    \<or> (lk_flushed xs n \<and> quiet (xs ! n) \<and> (\<forall>sc. xs ! n \<noteq> UNLKrmw sc))"
proof -
  obtain j where j: "j < Suc n" "\<exists>sc. xs ! j = FLUL1 sc" "held xs j \<noteq> None"
      "\<forall>m. j < m \<and> m < Suc n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc)"
    using assms unfolding lk_flushed_def by blast
  show ?thesis
  proof (cases "j = n")
    case True
    then show ?thesis using j by blast
  next
    case False
    then have "j < n" using j(1) by simp
    moreover have "n \<le> length xs" using assms by (simp add: lk_flushed_def)
    ultimately have "lk_flushed xs n" unfolding lk_flushed_def using j(2-4) by (intro conjI exI[of _ j]) auto
    then show ?thesis using j(4) \<open>j < n\<close> by simp
  qed
qed

lemma lk_flushed_FLUL1: "n < length xs \<Longrightarrow> xs ! n = FLUL1 sc \<Longrightarrow> held xs n \<noteq> None \<Longrightarrow> lk_flushed xs (Suc n)"
  unfolding lk_flushed_def by (intro conjI exI[of _ n]) auto

text \<open>A thread inside an rmw bracket holds its own work-group's lock.\<close>
lemma own_lock:
  assumes "lock_inv L Q s" "u \<in> threads Q" "held (instrs Q u) (pc s u) \<noteq> None" "wg_of L u \<in> wgs L"
  shows "rmw_lock s (wg_of L u) = Some u"
proof -
  obtain sc where "held (instrs Q u) (pc s u) = Some sc" using assms(3) by blast
  then show ?thesis using lock_invD1[OF assms(1,2)] wg_in_scope[OF assms(4)] by blast
qed

text \<open>Position n of code xs (of a thread of work-group w0) comes after a flush
  of work-group v's L1 made while an rmw lock of v was held, with only
  quiet instructions and no LKrmw or UNLKrmw between: the lock has been
  held since that flush.\<close>
definition lk_flushed_for :: "layout \<Rightarrow> instr list \<Rightarrow> nat \<Rightarrow> wid \<Rightarrow> wid \<Rightarrow> bool" where
  "lk_flushed_for L xs n w0 v \<longleftrightarrow> n \<le> length xs \<and> (\<exists>j < n. (\<exists>sc. xs ! j = FLUL1 sc \<and> v \<in> wgs_in L sc w0)
     \<and> (\<exists>sc. held xs j = Some sc \<and> v \<in> wgs_in L sc w0)
     \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc \<and> xs ! m \<noteq> LKrmw sc)))"

lemma held_same:
  assumes "j \<le> n" "n \<le> length xs" "\<forall>m. j \<le> m \<and> m < n \<longrightarrow> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc \<and> xs ! m \<noteq> LKrmw sc)"
  shows "held xs n = held xs j"
  using assms
proof (induction n)
  case 0
  then show ?case by simp
next
  case (Suc n)
  show ?case
  proof (cases "j = Suc n")
    case True
    then show ?thesis by simp
  next
    case False
    then have jn: "j \<le> n" using Suc.prems(1) by simp
    have "held xs n = held xs j" using Suc.IH jn Suc.prems(2,3) by simp
    moreover have "held xs (Suc n) = hold (held xs n) (xs ! n)" using held_Suc Suc.prems(2) by simp
    moreover have "\<forall>sc. xs ! n \<noteq> UNLKrmw sc \<and> xs ! n \<noteq> LKrmw sc" using Suc.prems(3) jn by simp
    ultimately show ?thesis by (cases "xs ! n") auto
  qed
qed

text \<open>So the thread holds that lock still.\<close>
lemma lk_flushed_for_held:
  assumes "lk_flushed_for L xs n w0 v"
  shows "\<exists>sc. held xs n = Some sc \<and> v \<in> wgs_in L sc w0"
proof -
  obtain j where j: "j < n" "\<exists>sc. xs ! j = FLUL1 sc" "\<exists>sc. held xs j = Some sc \<and> v \<in> wgs_in L sc w0"
      "\<forall>m. j < m \<and> m < n \<longrightarrow> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc \<and> xs ! m \<noteq> LKrmw sc)" and n: "n \<le> length xs"
    using assms unfolding lk_flushed_for_def by blast
  have "\<forall>m. j \<le> m \<and> m < n \<longrightarrow> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc \<and> xs ! m \<noteq> LKrmw sc)"
  proof (intro allI impI)
    fix m sc assume m: "j \<le> m \<and> m < n"
    show "xs ! m \<noteq> UNLKrmw sc \<and> xs ! m \<noteq> LKrmw sc"
    proof (cases "m = j")
      case True
      then show ?thesis using j(2) by auto
    next
      case False
      then show ?thesis using j(4) m by simp
    qed
  qed
  then have "held xs n = held xs j" using held_same[of j n xs] j(1) n by simp
  then show ?thesis using j(3) by simp
qed

lemma lk_flushed_for_Suc:
  assumes "lk_flushed_for L xs (Suc n) w0 v" "n < length xs"
  shows "((\<exists>sc. xs ! n = FLUL1 sc \<and> v \<in> wgs_in L sc w0) \<and> (\<exists>sc. held xs n = Some sc \<and> v \<in> wgs_in L sc w0))
    \<or> (lk_flushed_for L xs n w0 v \<and> quiet (xs ! n) \<and> (\<forall>sc. xs ! n \<noteq> UNLKrmw sc \<and> xs ! n \<noteq> LKrmw sc))"
proof -
  obtain j where j: "j < Suc n" "\<exists>sc. xs ! j = FLUL1 sc \<and> v \<in> wgs_in L sc w0"
      "\<exists>sc. held xs j = Some sc \<and> v \<in> wgs_in L sc w0"
      "\<forall>m. j < m \<and> m < Suc n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc \<and> xs ! m \<noteq> LKrmw sc)"
    using assms(1) unfolding lk_flushed_for_def by blast
  show ?thesis
  proof (cases "j = n")
    case True
    then show ?thesis using j(2,3) by blast
  next
    case False
    then have jn: "j < n" using j(1) by simp
    have "lk_flushed_for L xs n w0 v" unfolding lk_flushed_for_def
      using jn j(2,3,4) assms(2) by (intro conjI exI[of _ j]) auto
    moreover have "quiet (xs ! n) \<and> (\<forall>sc. xs ! n \<noteq> UNLKrmw sc \<and> xs ! n \<noteq> LKrmw sc)" using j(4) jn by simp
    ultimately show ?thesis by blast
  qed
qed

text \<open>In disciplined code a lock held since a flush is not taken again.\<close>
lemma held_no_lk:
  assumes d: "disciplined xs" and h: "held xs j \<noteq> None" and f: "\<forall>sc. xs ! j \<noteq> UNLKrmw sc"
    and q: "\<forall>m. j < m \<and> m < n \<longrightarrow> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc)" and m: "j < m" "m < n" "n \<le> length xs"
  shows "xs ! m \<noteq> LKrmw sc"
proof
  assume lk: "xs ! m = LKrmw sc"
  have "\<forall>m'. j \<le> m' \<and> m' < m \<longrightarrow> (\<forall>sc. xs ! m' \<noteq> UNLKrmw sc)"
  proof (intro allI impI)
    fix m' sc' assume m': "j \<le> m' \<and> m' < m"
    show "xs ! m' \<noteq> UNLKrmw sc'"
    proof (cases "m' = j")
      case True
      then show ?thesis using f by simp
    next
      case False
      then show ?thesis using q m m' by simp
    qed
  qed
  then have "held xs m \<noteq> None" using held_keep[of xs j m] h m by simp
  moreover have "lock_ok (held xs m) (xs ! m)" using disciplined_at[OF d] m by simp
  ultimately show False using lk by simp
qed

text \<open>A flush of the thread's own L1 under a lock, in disciplined code.\<close>
lemma lk_flushed_own:
  assumes d: "disciplined xs" and w0: "w0 \<in> wgs L" and f: "lk_flushed xs n"
  shows "lk_flushed_for L xs n w0 w0"
proof -
  obtain j sc where j: "j < n" "xs ! j = FLUL1 sc" "held xs j \<noteq> None"
      "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> UNLKrmw sc)" and n: "n \<le> length xs"
    using f unfolding lk_flushed_def by blast
  obtain sc' where h: "held xs j = Some sc'" using j(3) by blast
  have nl: "xs ! m \<noteq> LKrmw sc0" if m: "j < m" "m < n" for m sc0
    using held_no_lk[OF d j(3) _ _ m n] j(2,4) by simp
  show ?thesis unfolding lk_flushed_for_def
    using j(1,2,4) h n nl wg_in_scope[OF w0] by (intro conjI exI[of _ j]) auto
qed

text \<open>The invariant: a thread that has flushed the L1 of a work-group while
  holding that work-group's rmw lock, and holds it since, has its marker
  behind the address of every write of an RMW in the L1 of that work-group
  still waiting there.\<close>
definition flk_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_op set \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "flk_ok L S B P s g \<longleftrightarrow> (\<forall>u \<in> src_threads P. \<forall>v. lk_flushed_for L (instrs (compile S P) u) (pc s u) (wg_of L u) v \<longrightarrow>
     (\<forall>x t k. at_l1 B P t k \<and> Acc t k True \<in> pend1 L S P s g v x \<longrightarrow>
        (\<exists>i < length (l1_fifo s v). l1_fifo s v ! i = Addr x \<and> Flush u \<in> set (drop (Suc i) (l1_fifo s v)))))"

lemma flk_ok_initial: "flk_ok L S B P (initial (src_init P)) (ghost0 P)"
  by (simp add: flk_ok_def pend1_def wx_initial)

text \<open>So such a thread, once its marker has left, finds no such write waiting.\<close>
lemma flk_use:
  assumes "flk_ok L S B P s g" "u \<in> src_threads P" "lk_flushed_for L (instrs (compile S P) u) (pc s u) (wg_of L u) v"
    "Flush u \<notin> set (l1_fifo s v)" "at_l1 B P t k"
  shows "Acc t k True \<notin> pend1 L S P s g v x"
proof
  assume p: "Acc t k True \<in> pend1 L S P s g v x"
  obtain i where "Flush u \<in> set (drop (Suc i) (l1_fifo s v))"
    using assms(1-3,5) p unfolding flk_ok_def by blast
  then show False using assms(4) in_set_dropD by fast
qed

lemma drop_app_set: "j < length xs \<Longrightarrow> a \<in> set (drop (Suc j) xs) \<Longrightarrow> a \<in> set (drop (Suc j) (xs @ ys))"
  by simp

lemma flk_env:
  assumes inv: "ginv L S P s g" and st: "s' \<in> env_step L wb s" and fl: "flk_ok L S B P s g"
    and fe: "fifo_env L S P s s' g g'"
  shows "flk_ok L S B P s' g'"
  unfolding flk_ok_def
proof (intro ballI impI allI)
  have pend: "\<forall>w y. pend1 L S P s' g' w y \<subseteq> pend1 L S P s g w y"
    and q: "\<forall>w. l1_fifo s' w = l1_fifo s w \<or> (\<exists>e0. l1_fifo s w = e0 # l1_fifo s' w
      \<and> (\<forall>y. e0 = Addr y \<longrightarrow> pend1 L S P s' g' w y = {}))"
    using fe unfolding fifo_env_def by blast+
  have pc: "pc s' = pc s" using env_step_regs_pc_locks[OF st] by simp
  fix u v x t k assume u: "u \<in> src_threads P" and lk: "lk_flushed_for L (instrs (compile S P) u) (pc s' u) (wg_of L u) v"
    and e: "at_l1 B P t k \<and> Acc t k True \<in> pend1 L S P s' g' v x"
  have e0: "Acc t k True \<in> pend1 L S P s g v x" using e pend by blast
  have lk0: "lk_flushed_for L (instrs (compile S P) u) (pc s u) (wg_of L u) v" using lk pc by simp
  obtain i where i: "i < length (l1_fifo s v)" "l1_fifo s v ! i = Addr x" "Flush u \<in> set (drop (Suc i) (l1_fifo s v))"
    using fl u lk0 e e0 unfolding flk_ok_def by blast
  show "\<exists>i < length (l1_fifo s' v). l1_fifo s' v ! i = Addr x \<and> Flush u \<in> set (drop (Suc i) (l1_fifo s' v))"
  proof (cases "l1_fifo s' v = l1_fifo s v")
    case True
    then show ?thesis using i by auto
  next
    case False
    then obtain a where a: "l1_fifo s v = a # l1_fifo s' v" "\<forall>y. a = Addr y \<longrightarrow> pend1 L S P s' g' v y = {}"
      using q by blast
    have "i \<noteq> 0"
    proof
      assume "i = 0"
      then have "a = Addr x" using i(2) a(1) by simp
      then show False using a(2) e by blast
    qed
    then obtain i' where i': "i = Suc i'" by (cases i) auto
    show ?thesis using i a(1) i' by (intro exI[of _ i']) auto
  qed
qed

text \<open>A thread step: a thread's flush inside its bracket puts its marker
  behind every waiting address in the L1s it flushes; a new write of an RMW
  in the L1 comes from the holder of the work-group's lock, whose code has
  made no such flush in that bracket, and no other thread holds that lock.\<close>
lemma flk_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and wp: "well_placed L P"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and lk: "lock_inv L (compile S P) s"
    and lkc: "\<forall>u \<in> src_threads P. \<forall>p r x. p < length (instrs (compile S P) u) \<and> instrs (compile S P) u ! p = INCL1 r x
       \<longrightarrow> held (instrs (compile S P) u) p \<noteq> None \<and> \<not> lk_flushed (instrs (compile S P) u) p"
    and fl: "flk_ok L S B P s g"
  shows "flk_ok L S B P s' g'"
proof -
  note se = step_events[OF inv t st rows gs gv]
  define c where "c = instrs (compile S P) t"
  define n where "n = pc s t"
  define i where "i = c ! n"
  define w0 where "w0 = wg_of L t"
  obtain z where nl: "n < length c" and z: "exec L t i s = Some z" "s' = set_pc t (Suc n) z"
    and pcz: "pc z = pc s"
    by (rule step_shape[OF st rows]) (simp_all add: c_def n_def i_def)
  have pc': "pc s' = (pc s)(t := Suc n)" "l1_fifo s' = l1_fifo z" using z(2) pcz by (simp_all add: set_pc_def n_def)
  have fq: "l1_fifo s' = (case i of ST v x \<Rightarrow> (l1_fifo s)(w0 := l1_fifo s w0 @ [Addr x])
     | INCL1 r x \<Rightarrow> (l1_fifo s)(w0 := l1_fifo s w0 @ [Addr x])
     | FLUL1 sc \<Rightarrow> (\<lambda>w. if w \<in> wgs_in L sc w0 then l1_fifo s w @ [Flush t] else l1_fifo s w)
     | _ \<Rightarrow> l1_fifo s)"
    using exec_fifo[OF z(1)] pc'(2) unfolding w0_def by simp
  have grow: "\<exists>ys. l1_fifo s' w = l1_fifo s w @ ys" for w using fq by (cases i) auto
  have fo: "fifo_ok L S P s g" using oi by (simp add: oinv_def)
  have w0: "w0 \<in> wgs L" using wp t by (simp add: well_placed_def w0_def)
  have gs1: "\<forall>e. done_ev S P s e \<longrightarrow> ga2 g' e = ga2 g e" using gs by (simp add: gstep_def)
  have tq: "t \<in> threads (compile S P)" using t by (simp add: compile_def)
  \<comment> \<open>the step performs no write of an RMW in the L1 that would wait behind a marker\<close>
  have e0: "Acc t1 k1 True \<in> pend1 L S P s g v y"
    if e: "at_l1 B P t1 k1" "Acc t1 k1 True \<in> pend1 L S P s' g' v y" and u: "u \<in> src_threads P"
      and lku: "lk_flushed_for L (instrs (compile S P) u) (pc s' u) (wg_of L u) v" for t1 k1 v y u
  proof (cases "done_ev S P s (Acc t1 k1 True)")
    case True
    then show ?thesis using e(2) gs1 by (auto simp: pend1_def wx_def)
  next
    case False
    have dn: "done_ev S P s' (Acc t1 k1 True)" using e(2) by (auto simp: pend1_def wx_def)
    have tk: "t1 = t" "k1 = kd S P s t" and vis: "visible i"
      using se(1)[OF dn False] unfolding i_def c_def n_def by auto
    have ik: "i = src_access B (src_code P t ! k1)" using se(2) vis tk unfolding i_def c_def n_def by blast
    obtain a r x where a: "ins P t k1 = Op a r x" "a \<notin> B" using e(1) tk by (auto simp: at_l1_def)
    obtain sc rm r' x' where fi: "ins P t k1 = Op (FetchInc sc rm) r' x'"
      using e(1) tk wr_part[of "ins P t k1"] rd_part[of "ins P t k1" True] by (auto simp: at_l1_def acc_def)
    have fa: "a = FetchInc sc rm" using a(1) fi by simp
    have ii: "i = INCL1 r x" using ik a fa by (simp add: ins_def access_def)
    have hc: "held c n \<noteq> None" "\<not> lk_flushed c n" using lkc t nl ii unfolding i_def c_def by blast+
    have lt: "rmw_lock s w0 = Some t"
      using own_lock[OF lk tq _ ] hc(1) w0 unfolding c_def n_def w0_def by blast
    have "ewg L (Acc t1 k1 True) = Some v" using e(2) by (simp add: pend1_def)
    then have vw0: "v = w0" using tk by (simp add: w0_def)
    show ?thesis
    proof (cases "u = t")
      case True
      have lf: "lk_flushed_for L c (Suc n) (wg_of L t) v" using lku pc' True by (simp add: c_def n_def)
      show ?thesis using lk_flushed_for_Suc[OF lf nl] ii unfolding i_def by auto
    next
      case False
      then have "lk_flushed_for L (instrs (compile S P) u) (pc s u) (wg_of L u) v" using lku pc' by simp
      then obtain sc0 where h: "held (instrs (compile S P) u) (pc s u) = Some sc0" "v \<in> wgs_in L sc0 (wg_of L u)"
        using lk_flushed_for_held by blast
      have "u \<in> threads (compile S P)" using u by (simp add: compile_def)
      then have "rmw_lock s v = Some u" using lock_invD1[OF lk _ h] by blast
      then show ?thesis using lt vw0 False by simp
    qed
  qed
  show ?thesis
    unfolding flk_ok_def
  proof (intro ballI impI allI)
    fix u v x t1 k1 assume u: "u \<in> src_threads P" and lku: "lk_flushed_for L (instrs (compile S P) u) (pc s' u) (wg_of L u) v"
      and e: "at_l1 B P t1 k1 \<and> Acc t1 k1 True \<in> pend1 L S P s' g' v x"
    have ep: "Acc t1 k1 True \<in> pend1 L S P s g v x" using e0[OF _ _ u lku] e by blast
    obtain ys where ys: "l1_fifo s' v = l1_fifo s v @ ys" using grow by blast
    show "\<exists>i < length (l1_fifo s' v). l1_fifo s' v ! i = Addr x \<and> Flush u \<in> set (drop (Suc i) (l1_fifo s' v))"
    proof (cases "lk_flushed_for L (instrs (compile S P) u) (pc s u) (wg_of L u) v")
      case True
      then obtain j where j: "j < length (l1_fifo s v)" "l1_fifo s v ! j = Addr x" "Flush u \<in> set (drop (Suc j) (l1_fifo s v))"
        using fl u e ep unfolding flk_ok_def by blast
      then show ?thesis using ys by (intro exI[of _ j]) (auto simp: nth_append)
    next
      case False
      then have ut: "u = t" using lku pc' by (cases "u = t") auto
      then have "lk_flushed_for L c (Suc n) w0 v" using lku pc' by (simp add: c_def w0_def)
      from lk_flushed_for_Suc[OF this nl] False ut obtain sc where fc: "i = FLUL1 sc" "v \<in> wgs_in L sc w0"
        unfolding i_def c_def n_def w0_def by auto
      have "l1_fifo s' v = l1_fifo s v @ [Flush t]" using fq fc by simp
      moreover obtain j where j: "j < length (l1_fifo s v)" "l1_fifo s v ! j = Addr x"
        using fo ep unfolding fifo_ok_def by blast
      ultimately show ?thesis using ut by (intro exI[of _ j]) (auto simp: nth_append)
    qed
  qed
qed

section \<open>A remote RMW's rows: the device's locks, its flushes, its invalidation\<close>

text \<open>Quiet instructions other than an invalidation of the L1.\<close>
fun calm :: "instr \<Rightarrow> bool" where
  "calm (INVL1 _) = False" | "calm i = quiet i"

lemma calm_quiet: "calm i \<Longrightarrow> quiet i"
  by (cases i) auto

lemma calm_INVL1: "calm i \<Longrightarrow> i \<noteq> INVL1 sc"
  by (cases i) auto

lemma quiet_calm: "quiet i \<Longrightarrow> \<forall>sc. i \<noteq> INVL1 sc \<Longrightarrow> calm i"
  by (cases i) auto

text \<open>Position m of a code is made while an rmw lock wider than the
  work-group's is held, after a flush of the L1s of the device or wider
  made under such a lock with only quiet instructions and no UNLKrmw
  between, and before an invalidation of the L1s of the device or wider
  with only calm instructions between ([RSP15] sec. 5.1: a remote RMW
  reaches the work-group-scope RMWs of every work-group of its device;
  rsp-new's LKrmw DV; FLUL1 DV; INVL1 DV; RMWL2; FLUL1 DV; INVL1 DV;
  UNLKrmw DV).\<close>
definition rr_code :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "rr_code xs m \<longleftrightarrow> (\<exists>sc. held xs m = Some sc \<and> sc \<noteq> WG)
     \<and> (\<exists>j < m. (\<exists>sc. xs ! j = FLUL1 sc \<and> sc \<noteq> WG) \<and> (\<exists>sc. held xs j = Some sc \<and> sc \<noteq> WG)
        \<and> (\<forall>i. j < i \<and> i < m \<longrightarrow> quiet (xs ! i) \<and> (\<forall>sc. xs ! i \<noteq> UNLKrmw sc)))
     \<and> (\<exists>j < length xs. m < j \<and> (\<exists>sc. xs ! j = INVL1 sc \<and> sc \<noteq> WG) \<and> (\<forall>i. m < i \<and> i < j \<longrightarrow> calm (xs ! i)))"

text \<open>Position m of a code is a remote store's access made so, and up to
  the first invalidation of an L1 after it the lock held stays and a
  flush of the L1 precedes that invalidation with only quiet instructions
  between ([RSP15] sec. 5.1: a remote store reaches the work-group-scope
  writes of every work-group of its device; rsp-new's LKrmw DV; FLUL1 DV;
  INVL1 DV; ST; FLUL1 WG; INVL1 DV; UNLKrmw DV): the store has reached the
  L2 when its thread passes that invalidation, still under the lock.\<close>
definition rs_code :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "rs_code xs m \<longleftrightarrow> rr_code xs m
     \<and> (\<forall>j < length xs. m < j \<and> (\<exists>sc. xs ! j = INVL1 sc) \<and> (\<forall>i. m < i \<and> i < j \<longrightarrow> calm (xs ! i))
        \<longrightarrow> flushed xs j \<and> (\<forall>p < length xs. m < p \<and> p \<le> j \<longrightarrow> held xs p = held xs m))"

text \<open>The rows of remote RMWs at device scope or wider make their increment
  so, those of remote stores their store.\<close>
definition rr_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> src_op set \<Rightarrow> bool" where
  "rr_rows S A B \<longleftrightarrow> (\<forall>sc \<in> {Device, AllDevices}. FetchInc sc True \<in> A \<union> B
     \<longrightarrow> (\<exists>rw. S (FetchInc sc True) = Some rw
        \<and> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> rr_code (rw r x) m)))
   \<and> (\<forall>sc \<in> {Device, AllDevices}. Store sc True \<in> A \<union> B
     \<longrightarrow> (\<exists>rw. S (Store sc True) = Some rw
        \<and> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> rs_code (rw r x) m)))"

lemmas rr_simps = rr_rows_def rr_code_def rs_code_def flushed_def held_def numeral_eq_Suc All_less_Suc Ex_less_Suc
  all_between_Suc

lemma hold_fold: "foldl hold h ys = foldl hold h' ys \<or> (foldl hold h ys = h \<and> foldl hold h' ys = h')"
proof (induction ys arbitrary: h h')
  case Nil
  then show ?case by simp
next
  case (Cons i ys)
  show ?case
  proof (cases "\<exists>sc. i = LKrmw sc \<or> i = UNLKrmw sc")
    case True
    then have "hold h i = hold h' i" by auto
    then show ?thesis by simp
  next
    case False
    then have "hold h i = h" "hold h' i = h'" by (cases i; auto)+
    then show ?thesis using Cons.IH[of h h'] by simp
  qed
qed

text \<open>A lock a row holds is held at that position of the code it is
  compiled into.\<close>
lemma held_shift:
  assumes "held ys m = Some sc" "m \<le> length ys"
  shows "held (pre @ ys @ post) (length pre + m) = Some sc"
proof -
  have "take m (ys @ post) = take m ys" using assms(2) by simp
  then have tk: "take (length pre + m) (pre @ ys @ post) = pre @ take m ys" by simp
  have "held (pre @ ys @ post) (length pre + m) = foldl hold (foldl hold None pre) (take m ys)"
    unfolding held_def tk by simp
  moreover have "foldl hold None (take m ys) = Some sc" using assms(1) by (simp add: held_def)
  ultimately show ?thesis using hold_fold[of "foldl hold None pre" "take m ys" None] by auto
qed

lemma rr_code_shift:
  assumes r: "rr_code ys m" and m: "m < length ys"
  shows "rr_code (pre @ ys @ post) (length pre + m)"
proof -
  let ?c = "pre @ ys @ post"
  have ix: "?c ! i = ys ! (i - length pre)" if "length pre \<le> i" "i - length pre < length ys" for i
    using that by (simp add: nth_append)
  obtain sc where h: "held ys m = Some sc" "sc \<noteq> WG" using r unfolding rr_code_def by blast
  obtain j where j: "j < m" "\<exists>sc. ys ! j = FLUL1 sc \<and> sc \<noteq> WG" "\<exists>sc. held ys j = Some sc \<and> sc \<noteq> WG"
      "\<forall>i. j < i \<and> i < m \<longrightarrow> quiet (ys ! i) \<and> (\<forall>sc. ys ! i \<noteq> UNLKrmw sc)"
    using r unfolding rr_code_def by blast
  obtain j' where j': "j' < length ys" "m < j'" "\<exists>sc. ys ! j' = INVL1 sc \<and> sc \<noteq> WG"
      "\<forall>i. m < i \<and> i < j' \<longrightarrow> calm (ys ! i)"
    using r unfolding rr_code_def by blast
  obtain scj where hj: "held ys j = Some scj" "scj \<noteq> WG" using j(3) by blast
  have p1: "\<exists>sc. held ?c (length pre + m) = Some sc \<and> sc \<noteq> WG" using held_shift[OF h(1)] m h(2) by auto
  have f2: "\<exists>sc. ?c ! (length pre + j) = FLUL1 sc \<and> sc \<noteq> WG" using j(2) ix[of "length pre + j"] j(1) m by simp
  have h2: "\<exists>sc. held ?c (length pre + j) = Some sc \<and> sc \<noteq> WG" using held_shift[OF hj(1)] hj(2) j(1) m by auto
  have q2: "quiet (?c ! i) \<and> (\<forall>sc. ?c ! i \<noteq> UNLKrmw sc)" if i: "length pre + j < i" "i < length pre + m" for i
  proof -
    have "?c ! i = ys ! (i - length pre)" using ix i m by simp
    moreover have "j < i - length pre \<and> i - length pre < m" using i by arith
    ultimately show ?thesis using j(4) by simp
  qed
  have v3: "\<exists>sc. ?c ! (length pre + j') = INVL1 sc \<and> sc \<noteq> WG" using j'(1,3) ix[of "length pre + j'"] by simp
  have c3: "calm (?c ! i)" if i: "length pre + m < i" "i < length pre + j'" for i
  proof -
    have "?c ! i = ys ! (i - length pre)" using ix i j'(1) by simp
    moreover have "m < i - length pre \<and> i - length pre < j'" using i by arith
    ultimately show ?thesis using j'(4) by simp
  qed
  have l3: "length pre + j' < length ?c" using j'(1) by simp
  show ?thesis unfolding rr_code_def
  proof (intro conjI)
    show "\<exists>sc. held ?c (length pre + m) = Some sc \<and> sc \<noteq> WG" using p1 .
    show "\<exists>j0 < length pre + m. (\<exists>sc. ?c ! j0 = FLUL1 sc \<and> sc \<noteq> WG) \<and> (\<exists>sc. held ?c j0 = Some sc \<and> sc \<noteq> WG)
        \<and> (\<forall>i. j0 < i \<and> i < length pre + m \<longrightarrow> quiet (?c ! i) \<and> (\<forall>sc. ?c ! i \<noteq> UNLKrmw sc))"
      using j(1) f2 h2 q2 by (intro exI[of _ "length pre + j"]) auto
    show "\<exists>j0 < length ?c. length pre + m < j0 \<and> (\<exists>sc. ?c ! j0 = INVL1 sc \<and> sc \<noteq> WG)
        \<and> (\<forall>i. length pre + m < i \<and> i < j0 \<longrightarrow> calm (?c ! i))"
      using l3 j'(2) v3 c3 by (intro exI[of _ "length pre + j'"]) auto
  qed
qed

text \<open>So in code compiled by such rows, a remote RMW's increment is made so.\<close>
lemma compiled_rr:
  assumes rows: "l1_rows S A" "l2_rows S B" "rr_rows S A B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op (FetchInc sc True) r x" "sc \<in> {Device, AllDevices}"
  shows "rr_code (concat (map (compile_instr S) c)) n"
proof -
  obtain rw pre post m where rw: "FetchInc sc True \<in> A \<union> B" "S (FetchInc sc True) = Some rw"
      "concat (map (compile_instr S) c) = pre @ rw r x @ post" "n = length pre + m" "m < length (rw r x)"
      "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "\<forall>sc \<in> {Device, AllDevices}. FetchInc sc True \<in> A \<union> B
     \<longrightarrow> (\<exists>rw. S (FetchInc sc True) = Some rw
        \<and> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> rr_code (rw r x) m))"
    using rows(3) unfolding rr_rows_def by (rule conjunct1)
  then obtain rw' where rw': "S (FetchInc sc True) = Some rw'"
      "\<forall>r x. \<forall>m < length (rw' r x). visible (rw' r x ! m) \<longrightarrow> rr_code (rw' r x) m"
    using w(2) rw(1) by blast
  have "rr_code (rw r x) m" using rw' rw(2,5,6) by simp
  then show ?thesis using rr_code_shift[OF _ rw(5)] rw(3,4) by simp
qed

text \<open>A remote acquire's write is a remote RMW's, at device scope or wider.\<close>
lemma racq_wr:
  assumes r: "racq_ev P (Acc t k p)" "is_wr P (Acc t k p)"
  shows "\<exists>sc r x. ins P t k = Op (FetchInc sc True) r x \<and> sc \<in> {Device, AllDevices} \<and> p"
proof -
  obtain sc r0 x0 where c: "ins P t k = Op (Load sc True) r0 x0 \<or> ins P t k = Op (FetchInc sc True) r0 x0"
      "sc \<in> {Device, AllDevices}"
    using r(1) by (auto simp: racq_ev_def)
  have "wr (ins P t k) p" using r(2) by simp
  then show ?thesis using c by auto
qed

text \<open>And a thread's step of a remote RMW's write is such an increment.\<close>
lemma rr_step:
  assumes rows: "l1_rows S A" "l2_rows S B" "rr_rows S A B" "ops_of P \<subseteq> A \<union> B" and t: "t \<in> src_threads P"
    and n: "n < length (instrs (compile S P) t)" "visible (instrs (compile S P) t ! n)"
    and k: "length (filter visible (take n (instrs (compile S P) t))) = k"
    and r: "racq_ev P (Acc t k p)" "is_wr P (Acc t k p)"
  shows "rr_code (instrs (compile S P) t) n"
proof -
  obtain sc r0 x0 where c: "ins P t k = Op (FetchInc sc True) r0 x0" "sc \<in> {Device, AllDevices}"
    using racq_wr[OF r] by blast
  then have fi: "src_code P t ! k = Op (FetchInc sc True) r0 x0" by (simp add: ins_def)
  have ops: "\<forall>i \<in> set (src_code P t). op_of i \<subseteq> A \<union> B" using rows(4) t by (auto simp: ops_of_def)
  have xs: "instrs (compile S P) t = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  show ?thesis using compiled_rr[OF rows(1-3) ops _ _ _ fi c(2)] n k xs by simp
qed

lemma rs_codeD:
  assumes "rs_code xs m" "j < length xs" "m < j" "xs ! j = INVL1 sc" "\<forall>i. m < i \<and> i < j \<longrightarrow> calm (xs ! i)"
  shows "flushed xs j" "p < length xs \<Longrightarrow> m < p \<Longrightarrow> p \<le> j \<Longrightarrow> held xs p = held xs m"
proof -
  have u: "\<forall>j < length xs. m < j \<and> (\<exists>sc. xs ! j = INVL1 sc) \<and> (\<forall>i. m < i \<and> i < j \<longrightarrow> calm (xs ! i))
        \<longrightarrow> flushed xs j \<and> (\<forall>p < length xs. m < p \<and> p \<le> j \<longrightarrow> held xs p = held xs m)"
    using assms(1) unfolding rs_code_def by (rule conjunct2)
  have "flushed xs j \<and> (\<forall>p < length xs. m < p \<and> p \<le> j \<longrightarrow> held xs p = held xs m)"
    using u[rule_format, OF assms(2)] assms(3-5) by blast
  then show "flushed xs j" "p < length xs \<Longrightarrow> m < p \<Longrightarrow> p \<le> j \<Longrightarrow> held xs p = held xs m" by blast+
qed

lemma rs_code_rr: "rs_code xs m \<Longrightarrow> rr_code xs m"
  unfolding rs_code_def by (rule conjunct1)

text \<open>Two invalidations after m, each with only calm instructions between:
  the same one (the first).\<close>
lemma first_invl1:
  assumes j: "m < j" "xs ! j = INVL1 sc" "\<forall>i. m < i \<and> i < j \<longrightarrow> calm (xs ! i)"
    and j': "m < j'" "xs ! j' = INVL1 sc'" "\<forall>i. m < i \<and> i < j' \<longrightarrow> calm (xs ! i)"
  shows "j = j'"
proof (rule ccontr)
  assume "j \<noteq> j'"
  then have "j < j' \<or> j' < j" by arith
  then show False
  proof
    assume "j < j'"
    then have "calm (xs ! j)" using j(1) j'(3) by blast
    then show False using j(2) by simp
  next
    assume "j' < j"
    then have "calm (xs ! j')" using j'(1) j(3) by blast
    then show False using j'(2) by simp
  qed
qed

lemma flushed_shift:
  assumes f: "flushed ys n" and n: "n < length ys"
  shows "flushed (pre @ ys @ post) (length pre + n)"
proof -
  obtain j sc where j: "j < n" "ys ! j = FLUL1 sc" "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (ys ! m)"
    using f unfolding flushed_def by blast
  have ix: "(pre @ ys @ post) ! (length pre + i) = ys ! i" if "i < length ys" for i
    using that by (simp add: nth_append)
  have q: "quiet ((pre @ ys @ post) ! m)" if "length pre + j < m" "m < length pre + n" for m
  proof -
    have "m = length pre + (m - length pre)" "j < m - length pre" "m - length pre < n" using that by arith+
    then show ?thesis using ix[of "m - length pre"] j(3) n by (metis order.strict_trans)
  qed
  show ?thesis unfolding flushed_def
    using j(1,2) ix[of j] n q by (intro exI[of _ "length pre + j"]) auto
qed

lemma rs_code_shift:
  assumes r: "rs_code ys m" and m: "m < length ys"
  shows "rs_code (pre @ ys @ post) (length pre + m)"
proof -
  let ?c = "pre @ ys @ post"
  have rr: "rr_code ys m" using rs_code_rr[OF r] .
  have ix: "?c ! (length pre + i) = ys ! i" if "i < length ys" for i using that by (simp add: nth_append)
  obtain sc where h: "held ys m = Some sc" using rr unfolding rr_code_def by blast
  obtain j' sc' where j': "j' < length ys" "m < j'" "ys ! j' = INVL1 sc'" "\<forall>i. m < i \<and> i < j' \<longrightarrow> calm (ys ! i)"
    using rr unfolding rr_code_def by blast
  have "\<forall>j < length ?c. length pre + m < j \<and> (\<exists>sc. ?c ! j = INVL1 sc) \<and> (\<forall>i. length pre + m < i \<and> i < j \<longrightarrow> calm (?c ! i))
        \<longrightarrow> flushed ?c j \<and> (\<forall>p < length ?c. length pre + m < p \<and> p \<le> j \<longrightarrow> held ?c p = held ?c (length pre + m))"
  proof (intro allI impI)
    fix j assume jl: "j < length ?c" and a: "length pre + m < j \<and> (\<exists>sc. ?c ! j = INVL1 sc)
        \<and> (\<forall>i. length pre + m < i \<and> i < j \<longrightarrow> calm (?c ! i))"
    have jp: "length pre + m < j" using a by blast
    have "j \<le> length pre + j'"
    proof (rule ccontr)
      assume "\<not> j \<le> length pre + j'"
      then have "length pre + m < length pre + j' \<and> length pre + j' < j" using j'(2) by simp
      then have "calm (?c ! (length pre + j'))" using a by blast
      then show False using ix[OF j'(1)] j'(3) by simp
    qed
    then have j0: "j = length pre + (j - length pre)" "m < j - length pre" "j - length pre < length ys"
      using jp j'(1) by arith+
    define j0 where "j0 = j - length pre"
    note j0 = j0[folded j0_def]
    have c0: "calm (ys ! i)" if "m < i" "i < j0" for i
    proof -
      have "length pre + m < length pre + i \<and> length pre + i < j" using that j0(1) by simp
      then have "calm (?c ! (length pre + i))" using a by blast
      then show ?thesis using ix[of i] that j0(3) by simp
    qed
    have v0: "\<exists>sc. ys ! j0 = INVL1 sc" using a j0 ix by simp
    obtain sc0 where v0': "ys ! j0 = INVL1 sc0" using v0 by blast
    have c0': "\<forall>i. m < i \<and> i < j0 \<longrightarrow> calm (ys ! i)" using c0 by blast
    have f: "flushed ys j0" using rs_codeD(1)[OF r j0(3,2) v0' c0'] .
    have hp: "\<forall>p < length ys. m < p \<and> p \<le> j0 \<longrightarrow> held ys p = held ys m"
      using rs_codeD(2)[OF r j0(3,2) v0' c0'] by blast
    show "flushed ?c j \<and> (\<forall>p < length ?c. length pre + m < p \<and> p \<le> j \<longrightarrow> held ?c p = held ?c (length pre + m))"
    proof (intro conjI allI impI)
      show "flushed ?c j" using flushed_shift[OF f j0(3)] j0(1) by simp
    next
      fix p assume "p < length ?c" "length pre + m < p \<and> p \<le> j"
      then have p0: "p = length pre + (p - length pre)" "m < p - length pre" "p - length pre \<le> j0"
        using j0(1) by arith+
      define p0 where "p0 = p - length pre"
      note p0 = p0[folded p0_def]
      have "held ys p0 = Some sc" using hp p0 j0(3) h by simp
      then have "held ?c p = Some sc" using held_shift[of ys p0 sc pre post] p0 j0(3) by simp
      moreover have "held ?c (length pre + m) = Some sc" using held_shift[OF h] m by simp
      ultimately show "held ?c p = held ?c (length pre + m)" by simp
    qed
  qed
  then show ?thesis unfolding rs_code_def by (rule conjI[OF rr_code_shift[OF rr m]])
qed

text \<open>So in code compiled by such rows, a remote store is made so.\<close>
lemma compiled_rs:
  assumes rows: "l1_rows S A" "l2_rows S B" "rr_rows S A B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op (Store sc True) r x" "sc \<in> {Device, AllDevices}"
  shows "rs_code (concat (map (compile_instr S) c)) n"
proof -
  obtain rw pre post m where rw: "Store sc True \<in> A \<union> B" "S (Store sc True) = Some rw"
      "concat (map (compile_instr S) c) = pre @ rw r x @ post" "n = length pre + m" "m < length (rw r x)"
      "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "\<forall>sc \<in> {Device, AllDevices}. Store sc True \<in> A \<union> B
     \<longrightarrow> (\<exists>rw. S (Store sc True) = Some rw
        \<and> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> rs_code (rw r x) m))"
    using rows(3) unfolding rr_rows_def by (rule conjunct2)
  then obtain rw' where rw': "S (Store sc True) = Some rw'"
      "\<forall>r x. \<forall>m < length (rw' r x). visible (rw' r x ! m) \<longrightarrow> rs_code (rw' r x) m"
    using w(2) rw(1) by blast
  have eq: "rw' = rw" using rw'(1) rw(2) by simp
  have "rs_code (rw r x) m"
    using rw'(2)[THEN spec[of _ r], THEN spec[of _ x], THEN spec[of _ m], unfolded eq] rw(5,6) by blast
  then have "rs_code (pre @ rw r x @ post) (length pre + m)" by (rule rs_code_shift[OF _ rw(5)])
  then show ?thesis using rw(3,4) by simp
qed

text \<open>A thread's step of a remote store's write at device scope or wider.\<close>
lemma rs_step:
  assumes rows: "l1_rows S A" "l2_rows S B" "rr_rows S A B" "ops_of P \<subseteq> A \<union> B" and t: "t \<in> src_threads P"
    and n: "n < length (instrs (compile S P) t)" "visible (instrs (compile S P) t ! n)"
    and k: "length (filter visible (take n (instrs (compile S P) t))) = k"
    and r: "rstore_ev P (Acc t k p)" "wide_ev P (Acc t k p)"
  shows "rs_code (instrs (compile S P) t) n"
proof -
  obtain sc r0 x0 where c: "ins P t k = Op (Store sc True) r0 x0" using r(1) by (auto simp: rstore_ev_def)
  then have sc: "sc \<in> {Device, AllDevices}" using r(2) by (simp add: wide_ev_def)
  have fi: "src_code P t ! k = Op (Store sc True) r0 x0" using c by (simp add: ins_def)
  have ops: "\<forall>i \<in> set (src_code P t). op_of i \<subseteq> A \<union> B" using rows(4) t by (auto simp: ops_of_def)
  have xs: "instrs (compile S P) t = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  show ?thesis using compiled_rs[OF rows(1-3) ops _ _ _ fi sc] n k xs by simp
qed

lemma wgs_in_wide: "sc \<noteq> WG \<Longrightarrow> v \<in> wgs_in L DV w0 \<Longrightarrow> v \<in> wgs_in L sc w0"
  by (cases sc) (auto simp: wgs_in_def)

text \<open>Such an increment has flushed every L1 of its device under their
  locks.\<close>
lemma rr_flushed:
  assumes d: "disciplined xs" and r: "rr_code xs n" and v: "v \<in> wgs_in L DV w0" and n: "n \<le> length xs"
  shows "lk_flushed_for L xs n w0 v"
proof -
  obtain j sc sc' where j: "j < n" "xs ! j = FLUL1 sc" "sc \<noteq> WG" "held xs j = Some sc'" "sc' \<noteq> WG"
      "\<forall>i. j < i \<and> i < n \<longrightarrow> quiet (xs ! i) \<and> (\<forall>sc. xs ! i \<noteq> UNLKrmw sc)"
    using r unfolding rr_code_def by blast
  have nl: "xs ! m \<noteq> LKrmw sc0" if m: "j < m" "m < n" for m sc0
    using held_no_lk[OF d _ _ _ m n] j(2,4,6) by simp
  show ?thesis unfolding lk_flushed_for_def
    using j n nl wgs_in_wide[OF j(3) v] wgs_in_wide[OF j(5) v] by (intro conjI exI[of _ j]) auto
qed

text \<open>A remote RMW's write is of an RMW at the L2 (rl_rows).\<close>
lemma racq_at_l2:
  assumes rl: "rl_rows S A B" and ops: "ops_of P \<subseteq> A \<union> B" and r: "racq_ev P b" "is_wr P b"
  shows "\<exists>u j. b = Acc u j True \<and> at_l2 B P u j"
proof -
  obtain u j p where b: "b = Acc u j p" using r(1) by (cases b) (auto simp: racq_ev_def)
  obtain sc r0 x where fi: "ins P u j = Op (FetchInc sc True) r0 x" "p" and c: "sc \<in> {Device, AllDevices}"
    using racq_wr r b by blast
  have ac: "acc P u j p" using r(2) b by auto
  have "ins P u j \<in> set (src_code P u)" using ac(1) by (simp add: acc_def ins_def)
  moreover have "u \<in> src_threads P" using ac(1) by (simp add: acc_def)
  ultimately have "FetchInc sc True \<in> A \<union> B" using ops fi(1) by (force simp: ops_of_def op_of_def)
  then have "FetchInc sc True \<in> B" using rl c unfolding rl_rows_def by blast
  then show ?thesis using b fi ac(1) by (auto simp: at_l2_def)
qed

section \<open>The L1's line of a location a work-group RMW in the L1 writes\<close>

text \<open>Locations that an RMW in the L1 of work-group w writes.\<close>
definition l1_loc :: "layout \<Rightarrow> src_op set \<Rightarrow> src_program \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> bool" where
  "l1_loc L B P w x \<longleftrightarrow> (\<exists>t k. at_l1 B P t k \<and> wg_of L t = w \<and> sloc P (Acc t k True) = Some x)"

text \<open>And its access is an increment at the L2.\<close>
lemma racq_incl2:
  assumes rl: "rl_rows S A B" and ops: "ops_of P \<subseteq> A \<union> B"
    and r: "racq_ev P e" "is_wr P e" "e = Acc t k p" "sloc P e = Some x"
  shows "\<exists>r. src_access B (src_code P t ! k) = INCL2 r x"
proof -
  obtain u j where "e = Acc u j True" "at_l2 B P u j" using racq_at_l2[OF rl ops r(1,2)] by blast
  then obtain a r0 x0 where c: "ins P t k = Op a r0 x0" "a \<in> B" using r(3) by (auto simp: at_l2_def)
  have "x0 = x" using c r(3,4) by simp
  then show ?thesis using c by (auto simp: ins_def)
qed

text \<open>Such an RMW is at work-group scope (rel_rows performs the wider ones at
  the L2), so in a race-free program only its work-group, and remote RMWs
  and remote stores of other work-groups, write its location
  (scoped_conflicts; remote loads of other work-groups may read it).\<close>
lemma l1_loc_excl:
  assumes sc: "scoped_conflicts L P" and rr: "rel_rows S A B" and ops: "ops_of P \<subseteq> A \<union> B"
    and l: "l1_loc L B P w x" and b: "is_wr P b" "sloc P b = Some x" "ewg L b \<noteq> None"
  shows "ewg L b = Some w \<or> racq_ev P b \<or> wide_ev P b \<and> rstore_ev P b"
proof (rule ccontr)
  assume nb': "\<not> (ewg L b = Some w \<or> racq_ev P b \<or> wide_ev P b \<and> rstore_ev P b)"
  then have nb: "ewg L b \<noteq> Some w" and nr: "\<not> racq_ev P b" "\<not> (wide_ev P b \<and> rstore_ev P b)" by simp_all
  obtain t k where tk: "at_l1 B P t k" "wg_of L t = w" "sloc P (Acc t k True) = Some x"
    using l unfolding l1_loc_def by blast
  have ac: "acc P t k True" using tk(1) by (simp add: at_l1_def)
  obtain a r y where a: "ins P t k = Op a r y" "a \<notin> B" using tk(1) by (auto simp: at_l1_def)
  obtain sc0 rm r' y' where fi: "ins P t k = Op (FetchInc sc0 rm) r' y'"
    using ac wr_part[of "ins P t k"] rd_part[of "ins P t k" True] by (auto simp: acc_def)
  have fa: "a = FetchInc sc0 rm" using a(1) fi by simp
  have "ins P t k \<in> set (src_code P t)" using ac by (simp add: acc_def ins_def)
  moreover have "t \<in> src_threads P" using ac by (simp add: acc_def)
  ultimately have "a \<in> A \<union> B" using ops a(1) by (force simp: ops_of_def op_of_def)
  then have "\<not> wide_wr_op a" using rr a(2) fa unfolding rel_rows_def by blast
  then have nw: "\<not> wide_ev P (Acc t k True)" using fi fa by (simp add: wide_ev_def)
  have "is_wr P (Acc t k True)" using rmw_parts(1)[OF ac] .
  moreover have "sloc P (Acc t k True) = sloc P b" using tk(3) b(2) by simp
  moreover have "ewg L (Acc t k True) = Some w" using tk(2) by simp
  moreover have "is_rd P b \<or> is_wr P b" using b(1) by blast
  moreover have "ewg L (Acc t k True) \<noteq> ewg L b" using nb \<open>ewg L (Acc t k True) = Some w\<close> by simp
  ultimately have "wide_ev P (Acc t k True) \<or> rload_ev P b \<or> racq_ev P b \<or> wide_ev P b \<and> rstore_ev P b
      \<or> racq_ev P (Acc t k True)"
    using sc b(3) unfolding scoped_conflicts_def sc_pair_def by blast
  then show False using nw nr rload_racq racq_wide by blast
qed

text \<open>So every write of such a location waits, if at all, in w's L1 (a
  remote RMW's is performed at the L2, and a remote store's, given here
  to have reached it), and in its device's L2 (one device).\<close>
lemma l1_loc_home:
  assumes inv: "ginv L S P s g" and sc: "scoped_conflicts L P" and rr: "rel_rows S A B" and rl: "rl_rows S A B"
    and ops: "ops_of P \<subseteq> A \<union> B" and rml: "rmw_local L P" and at: "at2_ok L S B P s g"
    and l: "l1_loc L B P w x" and e: "wx S P s x e" and rs: "wide_ev P e \<and> rstore_ev P e \<longrightarrow> ga2 g e \<noteq> None"
  shows "(ga2 g e = None \<longrightarrow> ewg L e = Some w) \<and> (ga3 g e = None \<longrightarrow> dv L e = Some (dev_of L w))
    \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
proof (cases "\<exists>z. e = Init z")
  case True
  have ti: "time_inv S P s g" using inv by (simp add: ginv_def)
  then show ?thesis using True by (auto simp: time_inv_def)
next
  case False
  have ti: "time_inv S P s g" using inv by (simp add: ginv_def)
  obtain u j p where ue: "e = Acc u j p" using False by (cases e) auto
  have wr: "is_wr P e" "sloc P e = Some x" "done_ev S P s e" using e False by (auto simp: wx_def)
  obtain t k where tk: "at_l1 B P t k" "wg_of L t = w" "sloc P (Acc t k True) = Some x"
    using l unfolding l1_loc_def by blast
  have ac: "acc P t k True" using tk(1) by (simp add: at_l1_def)
  have "dv L (Acc t k True) = dv L e" using rmw_wr_conflict[OF rml rmw_parts(1)[OF ac] tk(3) _ e] ue by simp
  then have dvw: "dv L e = Some (dev_of L w)" using tk(2) by (simp add: dv_def)
  from l1_loc_excl[OF sc rr ops l wr(1,2)] ue
  consider (home) "ewg L e = Some w" | (racq) "racq_ev P e" | (rstore) "wide_ev P e \<and> rstore_ev P e" by auto
  then show ?thesis
  proof cases
    case home
    then have "wg_of L u = w" using ue by simp
    then show ?thesis using ue time_perf[OF ti e] False by (simp add: dv_def)
  next
    case racq
    obtain u' j' where "e = Acc u' j' True" "at_l2 B P u' j'" using racq_at_l2[OF rl ops racq wr(1)] by blast
    then have "ga2 g e \<noteq> None" using at wr(3) unfolding at2_ok_def by blast
    then show ?thesis using dvw by auto
  next
    case rstore
    then show ?thesis using dvw rs by auto
  qed
qed

text \<open>Position n of code xs (of a thread of work-group w0) comes before an
  invalidation of work-group w's L1, with only calm instructions between.\<close>
definition win_in :: "layout \<Rightarrow> instr list \<Rightarrow> nat \<Rightarrow> wid \<Rightarrow> wid \<Rightarrow> bool" where
  "win_in L xs n w0 w \<longleftrightarrow> (\<exists>j. n \<le> j \<and> j < length xs \<and> (\<exists>sc. xs ! j = INVL1 sc \<and> w \<in> wgs_in L sc w0)
     \<and> (\<forall>m. n \<le> m \<and> m < j \<longrightarrow> calm (xs ! m)))"

lemma win_in_win: "win_in L xs n w0 w \<Longrightarrow> win xs n"
  unfolding win_in_def win_def using calm_quiet by blast

text \<open>Before an invalidation, the first invalidation ahead is of the
  thread's own L1.\<close>
lemma win_first:
  assumes w0: "w0 \<in> wgs L"
  shows "win xs n \<Longrightarrow> win_in L xs n w0 w0"
proof (induction "length xs - n" arbitrary: n)
  case 0
  then show ?case unfolding win_def by auto
next
  case (Suc d)
  obtain j sc where j: "n \<le> j" "j < length xs" "xs ! j = INVL1 sc" "\<forall>m. n \<le> m \<and> m < j \<longrightarrow> quiet (xs ! m)"
    using Suc.prems unfolding win_def by blast
  show ?case
  proof (cases "\<exists>sc. xs ! n = INVL1 sc")
    case True
    then obtain sc0 where "xs ! n = INVL1 sc0" by blast
    then show ?thesis unfolding win_in_def using j(1,2) wg_in_scope[OF w0] by (intro exI[of _ n]) auto
  next
    case False
    have nj: "n < j" using j(1,3) False by (cases "n = j") auto
    have c: "calm (xs ! n)" using j(4) nj False quiet_calm by auto
    have "win xs (Suc n)" using win_Suc'[OF Suc.prems] False by blast
    moreover have "d = length xs - Suc n" using Suc.hyps(2) by arith
    ultimately have "win_in L xs (Suc n) w0 w0" using Suc.hyps(1) by blast
    then obtain j' sc' where j': "Suc n \<le> j'" "j' < length xs" "xs ! j' = INVL1 sc'" "w0 \<in> wgs_in L sc' w0"
        "\<forall>m. Suc n \<le> m \<and> m < j' \<longrightarrow> calm (xs ! m)"
      unfolding win_in_def by blast
    have "\<forall>m. n \<le> m \<and> m < j' \<longrightarrow> calm (xs ! m)"
    proof (intro allI impI)
      fix m assume m: "n \<le> m \<and> m < j'"
      show "calm (xs ! m)"
      proof (cases "m = n")
        case True
        then show ?thesis using c by simp
      next
        case False
        then show ?thesis using j'(5) m by simp
      qed
    qed
    then show ?thesis unfolding win_in_def using j' by (intro exI[of _ j']) auto
  qed
qed

lemma win_in_Suc:
  assumes a: "win_in L xs n w0 w" and c: "calm (xs ! n)"
  shows "win_in L xs (Suc n) w0 w"
proof -
  obtain j sc where j: "n \<le> j" "j < length xs" "xs ! j = INVL1 sc" "w \<in> wgs_in L sc w0"
      "\<forall>m. n \<le> m \<and> m < j \<longrightarrow> calm (xs ! m)"
    using a unfolding win_in_def by blast
  have "j \<noteq> n"
  proof
    assume "j = n"
    then show False using c j(3) calm_INVL1 by metis
  qed
  then show ?thesis unfolding win_in_def using j by (intro exI[of _ j]) auto
qed

text \<open>A remote store's access is its ST: only RMWs are performed at the L2
  (l2_rows).\<close>
lemma rstore_access:
  assumes "l2_rows S B" "ins P t k = Op (Store sc rm) r x"
  shows "src_access B (src_code P t ! k) = ST (ER r) x"
proof -
  have "Store sc rm \<notin> B" using assms(1) by (auto simp: l2_rows_def l2_row_def)
  then show ?thesis using assms(2) by (simp add: ins_def access_def)
qed

text \<open>After a remote RMW's increment, the invalidation ahead is of every L1
  of its device.\<close>
lemma rr_win:
  assumes r: "rr_code xs n" and v: "v \<in> wgs_in L DV w0"
  shows "win_in L xs (Suc n) w0 v"
proof -
  obtain j sc where j: "j < length xs" "n < j" "xs ! j = INVL1 sc" "sc \<noteq> WG" "\<forall>i. n < i \<and> i < j \<longrightarrow> calm (xs ! i)"
    using r unfolding rr_code_def by blast
  show ?thesis unfolding win_in_def using j wgs_in_wide[OF j(4) v] by (intro exI[of _ j]) auto
qed

text \<open>So after such an access (an increment or a remote store's store: no
  lock instruction) its thread waits, under a lock whose scope holds every
  L1 of its device, for their invalidation.\<close>
lemma rr_wait:
  assumes r: "rr_code xs n" and n: "n < length xs" and i: "\<forall>sc. xs ! n \<noteq> LKrmw sc \<and> xs ! n \<noteq> UNLKrmw sc"
    and v: "v \<in> wgs_in L DV w0"
  shows "\<exists>sc. held xs (Suc n) = Some sc \<and> v \<in> wgs_in L sc w0" "win_in L xs (Suc n) w0 v"
proof -
  obtain sc0 where h: "held xs n = Some sc0" "sc0 \<noteq> WG" using r unfolding rr_code_def by blast
  have "held xs (Suc n) = held xs n" using held_Suc[OF n] i by (cases "xs ! n") auto
  then show "\<exists>sc. held xs (Suc n) = Some sc \<and> v \<in> wgs_in L sc w0" using h wgs_in_wide[OF h(2) v] by auto
  show "win_in L xs (Suc n) w0 v" using rr_win[OF r v] .
qed

text \<open>A thread waits for the invalidation of w's L1 after its increment of
  x at the L2, or after its remote store of x, holding w's rmw lock: its
  code's INCL2 of x, or ST of x made as rs_code says, at q, then only calm
  instructions, a lock held whose scope holds w, and that invalidation
  ahead.\<close>
definition l2_win :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> bool" where
  "l2_win L S P s w x \<longleftrightarrow> (\<exists>u q. u \<in> src_threads P \<and> q < pc s u
     \<and> ((\<exists>r. instrs (compile S P) u ! q = INCL2 r x)
        \<or> (\<exists>v. instrs (compile S P) u ! q = ST v x) \<and> rs_code (instrs (compile S P) u) q)
     \<and> (\<forall>m. q < m \<and> m < pc s u \<longrightarrow> calm (instrs (compile S P) u ! m))
     \<and> (\<exists>sc. held (instrs (compile S P) u) (pc s u) = Some sc \<and> w \<in> wgs_in L sc (wg_of L u))
     \<and> win_in L (instrs (compile S P) u) (pc s u) (wg_of L u) w)"

text \<open>Thread u waits, after its remote store of x made as rs_code says, for
  the first invalidation of an L1 after it.\<close>
definition st_win :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> tid \<Rightarrow> addr \<Rightarrow> bool" where
  "st_win S P s u x \<longleftrightarrow> (\<exists>q v. q < pc s u \<and> instrs (compile S P) u ! q = ST v x
     \<and> rs_code (instrs (compile S P) u) q \<and> (\<forall>m. q < m \<and> m < pc s u \<longrightarrow> calm (instrs (compile S P) u ! m))
     \<and> (\<exists>j < length (instrs (compile S P) u). pc s u \<le> j \<and> (\<exists>sc. instrs (compile S P) u ! j = INVL1 sc)
        \<and> (\<forall>m. pc s u \<le> m \<and> m < j \<longrightarrow> calm (instrs (compile S P) u ! m))))"

text \<open>So it waits for the invalidation of every L1 of its device, under a
  lock whose scope holds them.\<close>
lemma st_win_l2:
  assumes sw: "st_win S P s u x" and u: "u \<in> src_threads P" and w: "w \<in> wgs_in L DV (wg_of L u)"
  shows "l2_win L S P s w x"
proof -
  let ?xs = "instrs (compile S P) u"
  obtain q v j sc where q: "q < pc s u" "?xs ! q = ST v x" "rs_code ?xs q" "\<forall>m. q < m \<and> m < pc s u \<longrightarrow> calm (?xs ! m)"
      "j < length ?xs" "pc s u \<le> j" "?xs ! j = INVL1 sc" "\<forall>m. pc s u \<le> m \<and> m < j \<longrightarrow> calm (?xs ! m)"
    using sw unfolding st_win_def by blast
  have rr: "rr_code ?xs q" using rs_code_rr[OF q(3)] .
  obtain sc0 where h0: "held ?xs q = Some sc0" "sc0 \<noteq> WG" using rr unfolding rr_code_def by blast
  obtain j' sc' where j': "j' < length ?xs" "q < j'" "?xs ! j' = INVL1 sc'" "sc' \<noteq> WG"
      "\<forall>i. q < i \<and> i < j' \<longrightarrow> calm (?xs ! i)"
    using rr unfolding rr_code_def by blast
  have cj: "\<forall>i. q < i \<and> i < j \<longrightarrow> calm (?xs ! i)"
  proof (intro allI impI)
    fix i assume "q < i \<and> i < j"
    then show "calm (?xs ! i)" using q(4,8) by (cases "i < pc s u") auto
  qed
  have qj: "q < j" using q(1,6) by simp
  have jj: "j = j'" using first_invl1[OF qj q(7) cj j'(2,3,5)] .
  have pl: "pc s u < length ?xs" using q(5,6) by simp
  have "held ?xs (pc s u) = held ?xs q" using rs_codeD(2)[OF q(3,5) qj q(7) cj pl q(1,6)] .
  then have hp: "held ?xs (pc s u) = Some sc0" using h0 by simp
  have wi: "win_in L ?xs (pc s u) (wg_of L u) w"
    unfolding win_in_def using q(5,6,8) jj j'(3,4) wgs_in_wide[OF j'(4) w] by (intro exI[of _ j]) auto
  show ?thesis unfolding l2_win_def
    using u q(1,2,3,4) hp wgs_in_wide[OF h0(2) w] wi by (intro exI[of _ u] exI[of _ q]) auto
qed

text \<open>A remote store's write at device scope or wider that has not reached
  the L2: its thread waits so.\<close>
definition rs_ok :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "rs_ok S P s g \<longleftrightarrow> (\<forall>u k p x. is_wr P (Acc u k p) \<and> rstore_ev P (Acc u k p) \<and> wide_ev P (Acc u k p)
     \<and> done_ev S P s (Acc u k p) \<and> sloc P (Acc u k p) = Some x \<and> ga2 g (Acc u k p) = None \<longrightarrow> st_win S P s u x)"

lemma rs_ok_initial: "rs_ok S P (initial (src_init P)) (ghost0 P)"
  by (simp add: rs_ok_def)

lemma rs_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and rs: "rs_ok S P s g"
  shows "rs_ok S P s' g'"
proof -
  have m2: "\<forall>e. ga2 g e \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None" using m by (simp add: env_mono_def)
  have sw: "st_win S P s' = st_win S P s" unfolding st_win_def[abs_def] pc ..
  show ?thesis unfolding rs_ok_def
  proof (intro allI impI)
    fix u k p x assume a: "is_wr P (Acc u k p) \<and> rstore_ev P (Acc u k p) \<and> wide_ev P (Acc u k p)
      \<and> done_ev S P s' (Acc u k p) \<and> sloc P (Acc u k p) = Some x \<and> ga2 g' (Acc u k p) = None"
    have "ga2 g (Acc u k p) = None" using a m2 by blast
    then have "st_win S P s u x" using rs a unfolding rs_ok_def done_same[OF pc] by blast
    then show "st_win S P s' u x" using sw by simp
  qed
qed

text \<open>So a remote store's write of a location an RMW in w's L1 writes that
  has not reached the L2 has a thread wait for the invalidation of w's L1
  (one device: dev_conflicts).\<close>
lemma rs_l2_win:
  assumes rs: "rs_ok S P s g" and ei: "ev_inv S P s g" and rml: "rmw_local L P" and wp: "well_placed L P"
    and l: "l1_loc L B P w x" and e: "wx S P s x e" "wide_ev P e" "rstore_ev P e" "ga2 g e = None"
  shows "l2_win L S P s w x"
proof -
  obtain u k p where ue: "e = Acc u k p" using e(3) by (cases e) (auto simp: rstore_ev_def)
  have wr: "is_wr P e" "sloc P e = Some x" "done_ev S P s e" using e(1) e(3) ue by (auto simp: wx_def rstore_ev_def)
  have sw: "st_win S P s u x" using rs wr e(2-4) ue unfolding rs_ok_def by blast
  have u: "u \<in> src_threads P" using done_thread[OF ei] wr(3) ue by simp
  obtain t1 k1 where tk: "at_l1 B P t1 k1" "wg_of L t1 = w" "sloc P (Acc t1 k1 True) = Some x"
    using l unfolding l1_loc_def by blast
  have ac: "acc P t1 k1 True" using tk(1) by (simp add: at_l1_def)
  have t1: "t1 \<in> src_threads P" using ac by (simp add: acc_def)
  have w1: "w \<in> wgs L" using wp t1 tk(2) by (auto simp: well_placed_def)
  have "dv L (Acc t1 k1 True) = dv L e" using rmw_wr_conflict[OF rml rmw_parts(1)[OF ac] tk(3) _ e(1)] ue by simp
  then have "w \<in> wgs_in L DV (wg_of L u)" using w1 tk(2) ue by (simp add: dv_def wgs_in_def)
  then show ?thesis using st_win_l2[OF sw u] by blast
qed

text \<open>Outside such a wait, a remote store's write of that location has
  reached the L2.\<close>
lemma rs_in_l2:
  assumes rs: "rs_ok S P s g" and ei: "ev_inv S P s g" and rml: "rmw_local L P" and wp: "well_placed L P"
    and l: "l1_loc L B P w x" and e: "wx S P s x e" and nw: "\<not> l2_win L S P s w x"
  shows "wide_ev P e \<and> rstore_ev P e \<longrightarrow> ga2 g e \<noteq> None"
  using rs_l2_win[OF rs ei rml wp l e] nw by blast

text \<open>A thread step keeps it: a remote store's step starts its thread's
  wait (rs_code); the wait ends only with the first invalidation after it,
  whose step finds the thread flushed (not unflushed, rs_code's flush
  before the invalidation), so the store had reached the L2
  (known_flushed).\<close>
lemma rs_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and hb: "hb_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and rrw: "rr_rows S A B" and wp: "well_placed L P"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and rs: "rs_ok S P s g"
  shows "rs_ok S P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have kh: "kh_ok L S P s g" using hb by (simp add: hb_ok_def)
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(5,6) by (simp add: set_pc_def)
  have kdef: "length (filter visible (take ?n ?xs)) = ?k" by (simp add: kd_def)
  show ?thesis unfolding rs_ok_def
  proof (intro allI impI)
    fix u k p x assume a: "is_wr P (Acc u k p) \<and> rstore_ev P (Acc u k p) \<and> wide_ev P (Acc u k p)
      \<and> done_ev S P s' (Acc u k p) \<and> sloc P (Acc u k p) = Some x \<and> ga2 g' (Acc u k p) = None"
    show "st_win S P s' u x"
    proof (cases "done_ev S P s (Acc u k p)")
      case dn: True
      have a2: "ga2 g (Acc u k p) = None" using a se(4)[OF dn] by simp
      have sw: "st_win S P s u x" using rs a dn a2 unfolding rs_ok_def by blast
      show ?thesis
      proof (cases "u = t")
        case False
        then show ?thesis using sw pc' unfolding st_win_def by simp
      next
        case ut: True
        obtain q v j sc where q: "q < ?n" "?xs ! q = ST v x" "rs_code ?xs q" "\<forall>m. q < m \<and> m < ?n \<longrightarrow> calm (?xs ! m)"
            "j < length ?xs" "?n \<le> j" "?xs ! j = INVL1 sc" "\<forall>m. ?n \<le> m \<and> m < j \<longrightarrow> calm (?xs ! m)"
          using sw ut unfolding st_win_def by blast
        show ?thesis
        proof (cases "j = ?n")
          case True
          \<comment> \<open>the invalidation that ends the wait: the store has reached the L2 before it\<close>
          have cj: "\<forall>i. q < i \<and> i < j \<longrightarrow> calm (?xs ! i)" using q(4) True by simp
          have "flushed ?xs j" using rs_codeD(1)[OF q(3,5) _ q(7) cj] q(1) True by simp
          then have fl: "flushed ?xs ?n" using True by simp
          have wx: "wx S P s x (Acc u k p)" using a dn by (simp add: wx_def)
          have kn: "knows L S P s g t (Acc u k p)" using ut by (simp add: knows_def)
          have "ga2 g (Acc u k p) \<noteq> None" using known_flushed[OF oi kh t wp fl z(3) wx kn] .
          then show ?thesis using a2 by simp
        next
          case False
          have c: "calm ?i" using q(8) q(6) False by simp
          have "\<forall>m. q < m \<and> m < Suc ?n \<longrightarrow> calm (?xs ! m)" using q(4) c by (auto simp: less_Suc_eq)
          moreover have "Suc ?n \<le> j" using q(6) False by simp
          moreover have "\<forall>m. Suc ?n \<le> m \<and> m < j \<longrightarrow> calm (?xs ! m)" using q(8) by simp
          ultimately show ?thesis unfolding st_win_def using pc' ut q(1,2,3,5,7)
            by (intro exI[of _ q] exI[of _ v]) auto
        qed
      qed
    next
      case False
      \<comment> \<open>the step's own remote store: its thread starts to wait\<close>
      have ie: "is_wr P (Acc u k p)" "done_ev S P s' (Acc u k p)" using a by blast+
      obtain y0 where y0: "sloc P (Acc u k p) = Some y0 \<and> (\<exists>p'. Acc u k p = Acc t ?k p')
        \<and> ((((\<exists>v. ?i = ST v y0) \<or> (\<exists>r. ?i = INCL1 r y0)) \<and> ga2 g' (Acc u k p) = None \<and> h1 g' (wg_of L t) y0 = Acc u k p)
          \<or> ((\<exists>r. ?i = INCL2 r y0) \<and> ga2 g' (Acc u k p) = Some (gt g' (Acc u k p)) \<and> h2 g' (dev_of L (wg_of L t)) y0 = Acc u k p))"
        using se(7)[OF ie False] by blast
      have ut: "u = t" "k = ?k" using y0 by auto
      have sy: "sloc P (Acc u k p) = Some y0" using y0 by blast
      have sx: "sloc P (Acc u k p) = Some x" using a by blast
      have "Some y0 = Some x" using trans[OF sym[OF sy] sx] .
      then have y: "y0 = x" by simp
      have vis: "visible ?i" using se(1)[OF ie(2) False] by blast
      have ik: "?i = src_access B (src_code P t ! ?k)" using se(2) vis by blast
      obtain sc r0 x0 where c: "ins P t ?k = Op (Store sc True) r0 x0" using a ut by (auto simp: rstore_ev_def)
      have iv: "?i = ST (ER r0) x" using ik rstore_access[OF rows(2) c] y0 y by auto
      have rc: "rs_code ?xs ?n" by (rule rs_step[OF rows(1,2) rrw rows(3) t z(1) vis kdef, where p=p]) (use a ut in simp_all)
      obtain j' sc' where j': "j' < length ?xs" "?n < j'" "?xs ! j' = INVL1 sc'"
          "\<forall>i. ?n < i \<and> i < j' \<longrightarrow> calm (?xs ! i)"
        using rs_code_rr[OF rc] unfolding rr_code_def by blast
      have "\<exists>j < length ?xs. Suc ?n \<le> j \<and> (\<exists>sc. ?xs ! j = INVL1 sc) \<and> (\<forall>m. Suc ?n \<le> m \<and> m < j \<longrightarrow> calm (?xs ! m))"
        using j' by (intro exI[of _ j']) auto
      then show ?thesis unfolding st_win_def using pc' ut iv rc by (intro exI[of _ ?n] exI[of _ "ER r0"]) auto
    qed
  qed
qed

text \<open>The invariant: the readable L1 line of such a location is settled
  after every write of it, but while a thread waits for the invalidation
  of that L1 after its increment at the L2.\<close>
definition ln_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_op set \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "ln_ok L S B P s g \<longleftrightarrow> (\<forall>w x e. l1_loc L B P w x \<and> readable (l1 s w x) \<and> \<not> l2_win L S P s w x \<and> wx S P s x e
     \<longrightarrow> sb L g e (h1 g w x))"

lemma ln_ok_initial: "ln_ok L S B P (initial (src_init P)) (ghost0 P)"
  by (simp add: ln_ok_def initial_fields readable_def)

lemma ln_env:
  assumes pc: "pc s' = pc s" and k: "sb_keep L S P s g g'" and le: "l1_env L s s' g g'"
    and inv: "ginv L S P s g" and l2: "l2_ok L S P s g" and rml: "rmw_local L P"
    and sc: "scoped_conflicts L P" and rr: "rel_rows S A B" and rl: "rl_rows S A B" and ops: "ops_of P \<subseteq> A \<union> B"
    and at: "at2_ok L S B P s g" and ln: "ln_ok L S B P s g" and rs: "rs_ok S P s g" and wp: "well_placed L P"
  shows "ln_ok L S B P s' g'"
  unfolding ln_ok_def
proof (intro allI impI)
  fix w x e assume a: "l1_loc L B P w x \<and> readable (l1 s' w x) \<and> \<not> l2_win L S P s' w x \<and> wx S P s' x e"
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" using inv by (simp_all add: ginv_def)
  have lw: "l2_win L S P s' = l2_win L S P s" unfolding l2_win_def[abs_def] pc ..
  have we: "wx S P s x e" using a wx_same[OF pc] by simp
  have l: "l1_loc L B P w x" using a by blast
  obtain t k where tk: "at_l1 B P t k" "wg_of L t = w" "sloc P (Acc t k True) = Some x"
    using a unfolding l1_loc_def by blast
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  have rse: "wide_ev P e \<and> rstore_ev P e \<longrightarrow> ga2 g e \<noteq> None"
    using rs_in_l2[OF rs ei rml wp l we] a lw by simp
  have home: "ga2 g e = None \<longrightarrow> ewg L e = Some w"
    using l1_loc_home[OF inv sc rr rl ops rml at l we rse] by blast
  from le a consider (same) "readable (l1 s w x)" "h1 g' w x = h1 g w x"
    | (fetch) "\<not> dirty (l1 s w x)" "readable (l2 s (dev_of L w) x)" "h1 g' w x = h2 g (dev_of L w) x"
    unfolding l1_env_def by blast
  then show "sb L g' e (h1 g' w x)"
  proof cases
    case same
    have nw: "\<not> l2_win L S P s w x" using a lw by simp
    have "sb L g e (h1 g w x)" using ln a same(1) nw we unfolding ln_ok_def by blast
    moreover have "wx S P s x (h1 g w x)" using h1_wx[OF li same(1)] .
    ultimately have "sb L g' e (h1 g w x)" using k we unfolding sb_keep_def by blast
    then show ?thesis using same(2) by simp
  next
    case fetch
    have a2: "ga2 g e \<noteq> None"
    proof
      assume n: "ga2 g e = None"
      then have "e \<in> pend1 L S P s g w x" using home we by (simp add: pend1_def)
      then show False using di fetch(1) by (auto simp: dirty_inv_def)
    qed
    have hw: "wx S P s x (h2 g (dev_of L w) x)" using h2_wx[OF li fetch(2)] .
    have "e = Init x \<or> dv L e = Some (dev_of L (wg_of L t))"
      using rmw_conflict[OF rml we, of "Acc t k True" t] rmw_parts(1) tk(1,3) by (simp add: at_l1_def)
    then have "sb L g e (h2 g (dev_of L w) x)" using sb_l2_line[OF inv l2 _ we a2] fetch(2) tk(2) by blast
    then have "sb L g' e (h2 g (dev_of L w) x)" using k we hw unfolding sb_keep_def by blast
    then show ?thesis using fetch(3) by simp
  qed
qed

text \<open>A step that invalidates an L1 leaves none of its lines readable.\<close>
lemma step_invl1:
  assumes st: "step_thread L (compile S P) t s = Some s'" and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and i: "instrs (compile S P) t ! pc s t = INVL1 sc" and w: "w \<in> wgs_in L sc (wg_of L t)"
  shows "\<not> readable (l1 s' w y)"
proof -
  obtain z where z: "exec L t (instrs (compile S P) t ! pc s t) s = Some z" "s' = set_pc t (Suc (pc s t)) z"
    by (rule step_shape[OF st rows]) blast
  then show ?thesis using i w by (auto simp: set_pc_def)
qed

text \<open>A thread step keeps it: a store or an RMW in w's L1 writes the
  newest; an increment at the L2, or a remote store of another
  work-group, starts its thread's wait, under w's lock (its own
  work-group's, or a remote RMW's or remote store's of the device:
  rr_rows); the wait ends only with the invalidation of w's L1, which
  leaves no line of w readable; within it the thread's lock stays taken
  (lk_code, rs_code); a remote store not yet in the L2 has its thread in
  such a wait (rs_ok).\<close>
lemma ln_thread:
  assumes inv: "ginv L S P s g" and gi: "ginv L S P s' g'" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "acq_rows S A B" and wp: "well_placed L P"
    and sc: "scoped_conflicts L P" and rr: "rel_rows S A B" and rl: "rl_rows S A B" and rrw: "rr_rows S A B"
    and rml: "rmw_local L P"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and dis: "\<forall>u \<in> src_threads P. disciplined (instrs (compile S P) u)"
    and lkc3: "\<forall>u \<in> src_threads P. \<forall>q p r x. q < p \<and> instrs (compile S P) u ! q = INCL2 r x
       \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (instrs (compile S P) u ! m)) \<and> win (instrs (compile S P) u) p
       \<longrightarrow> held (instrs (compile S P) u) p \<noteq> None"
    and l2: "l2_ok L S P s g" and at: "at2_ok L S B P s g" and ln: "ln_ok L S B P s g" and rs': "rs_ok S P s' g'"
  shows "ln_ok L S B P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ti: "time_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have li': "lines_inv S P s' g'" using gi by (simp add: ginv_def)
  have c0: "0 < clk g" using l2 by (simp add: l2_ok_def)
  have ww: "wg_of L t \<in> wgs L" using wp t by (simp add: well_placed_def)
  have gs2: "\<forall>e. is_wr P e \<and> done_ev S P s' e \<and> \<not> done_ev S P s e \<longrightarrow> clk g < gt g' e \<and> ga3 g' e = None
      \<and> ((ga2 g' e = None \<and> (\<exists>y v r. sloc P e = Some y \<and> (?i = ST v y \<or> ?i = INCL1 r y)))
         \<or> (ga2 g' e = Some (gt g' e) \<and> (\<exists>r x. ?i = INCL2 r x)))"
    using gs by (simp add: gstep_def)
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(5,6) by (simp add: set_pc_def)
  have kdef: "length (filter visible (take ?n ?xs)) = ?k" by (simp add: kd_def)
  have xsc: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
  have ik: "?i = src_access B (src_code P t ! ?k)" if "visible ?i" using se(2) that by blast
  have dt: "disciplined ?xs" using dis t by blast
  have inc2win: "win ?xs (Suc ?n)" if r0: "?i = INCL2 r0 x0" for r0 x0
  proof (cases "src_code P t ! ?k")
    case (Op a0 r1 x1)
    have v: "visible ?i" using r0 by simp
    have aB: "a0 \<in> B" using ik[OF v] r0 Op by (cases a0) (auto simp: access_def split: if_splits)
    have "?n < length (concat (map (compile_instr S) (src_code P t)))" using z(1) xsc by simp
    moreover have "visible (concat (map (compile_instr S) (src_code P t)) ! ?n)" using v xsc by simp
    moreover have "length (filter visible (take ?n (concat (map (compile_instr S) (src_code P t))))) = ?k"
      using kdef xsc by simp
    ultimately show ?thesis using compiled_win[OF rows(1,2,4) ops _ _ _ Op disjI2[OF aB]] xsc by simp
  next
    case (SetReg r1 v)
    then show ?thesis using ik r0 by simp
  qed
  show ?thesis
    unfolding ln_ok_def
  proof (intro allI impI)
    fix w x e assume a: "l1_loc L B P w x \<and> readable (l1 s' w x) \<and> \<not> l2_win L S P s' w x \<and> wx S P s' x e"
    have l1l: "l1_loc L B P w x" using a by blast
    obtain t1 k1 where tk: "at_l1 B P t1 k1" "wg_of L t1 = w" "sloc P (Acc t1 k1 True) = Some x"
      using a unfolding l1_loc_def by blast
    have t1: "t1 \<in> src_threads P" using tk(1) by (simp add: at_l1_def acc_def)
    have w1: "w \<in> wgs L" using wp t1 tk(2) by (auto simp: well_placed_def)
    have ac1: "acc P t1 k1 True" using tk(1) by (simp add: at_l1_def)
    have r': "readable (l1 s' w x)" using a by blast
    \<comment> \<open>the step's own write of x is w's new line, or an increment at the L2 whose thread now waits\<close>
    have neww: "h1 g' w x = e \<or> l2_win L S P s' w x" if nd: "\<not> done_ev S P s e"
    proof -
      have ie: "is_wr P e" "done_ev S P s' e" "sloc P e = Some x" using a nd by (auto simp: wx_def)
      obtain y0 where y0: "sloc P e = Some y0 \<and> (\<exists>p. e = Acc t ?k p)
        \<and> ((((\<exists>v. ?i = ST v y0) \<or> (\<exists>r. ?i = INCL1 r y0)) \<and> ga2 g' e = None \<and> h1 g' (wg_of L t) y0 = e)
          \<or> ((\<exists>r. ?i = INCL2 r y0) \<and> ga2 g' e = Some (gt g' e) \<and> h2 g' (dev_of L (wg_of L t)) y0 = e))"
        using se(7)[OF ie(1,2) nd] by blast
      have y: "y0 = x" using y0 ie(3) by simp
      obtain p where ep: "e = Acc t ?k p" using y0 by blast
      show ?thesis
      proof (cases "\<exists>r. ?i = INCL2 r x")
        case False
        from l1_loc_excl[OF sc rr rows(3) l1l ie(1,3)] ep
        consider (own) "wg_of L t = w" | (racq) "racq_ev P e" | (rstore) "wide_ev P e \<and> rstore_ev P e" by auto
        then show ?thesis
        proof cases
          case own
          then show ?thesis using y0 y False by blast
        next
          case racq
          have "visible ?i" using se(1)[OF ie(2) nd] by blast
          then show ?thesis using racq_incl2[OF rl rows(3) racq ie(1) ep ie(3)] ik False by auto
        next
          case rstore
          \<comment> \<open>a remote store of another work-group: its thread starts to wait\<close>
          have v: "visible ?i" using se(1)[OF ie(2) nd] by blast
          have rc: "rs_code ?xs ?n" by (rule rs_step[OF rows(1,2) rrw rows(3) t z(1) v kdef, where p=p]) (use rstore ep in simp_all)
          then have rc': "rr_code ?xs ?n" by (rule rs_code_rr)
          obtain sc1 r1 x1 where c: "ins P t ?k = Op (Store sc1 True) r1 x1" using rstore ep by (auto simp: rstore_ev_def)
          have iv: "?i = ST (ER r1) x" using ik[OF v] rstore_access[OF rows(2) c] y0 y by auto
          have "dv L (Acc t1 k1 True) = dv L e"
            using rmw_wr_conflict[OF rml rmw_parts(1)[OF ac1] tk(3) _ a[THEN conjunct2, THEN conjunct2, THEN conjunct2]]
              ep by simp
          then have "w \<in> wgs_in L DV (wg_of L t)" using w1 tk(2) ep by (simp add: dv_def wgs_in_def)
          then have wait: "\<exists>sc. held ?xs (Suc ?n) = Some sc \<and> w \<in> wgs_in L sc (wg_of L t)"
            "win_in L ?xs (Suc ?n) (wg_of L t) w" using rr_wait[OF rc' z(1)] iv by simp_all
          have "l2_win L S P s' w x" unfolding l2_win_def
            using t iv rc pc' wait by (intro exI[of _ t] exI[of _ ?n]) auto
          then show ?thesis by blast
        qed
      next
        case True
        then obtain r where r: "?i = INCL2 r x" by blast
        have wait: "\<exists>sc. held ?xs (Suc ?n) = Some sc \<and> w \<in> wgs_in L sc (wg_of L t)"
          "win_in L ?xs (Suc ?n) (wg_of L t) w"
        proof -
          from l1_loc_excl[OF sc rr rows(3) l1l ie(1,3)] ep
          consider (own) "wg_of L t = w" | (remote) "racq_ev P e" | (rstore) "wide_ev P e \<and> rstore_ev P e" by auto
          then have "(\<exists>sc. held ?xs (Suc ?n) = Some sc \<and> w \<in> wgs_in L sc (wg_of L t))
            \<and> win_in L ?xs (Suc ?n) (wg_of L t) w"
          proof cases
            case own
            have c3: "?n < Suc ?n \<and> ?xs ! ?n = INCL2 r x \<and> (\<forall>m. ?n < m \<and> m < Suc ?n \<longrightarrow> calm (?xs ! m))
                \<and> win ?xs (Suc ?n)" using r inc2win[OF r] by (auto simp: less_Suc_eq)
            have "held ?xs (Suc ?n) \<noteq> None"
              using bspec[OF lkc3 t, THEN spec[of _ ?n], THEN spec[of _ "Suc ?n"], THEN spec[of _ r], THEN spec[of _ x],
                THEN mp, OF c3] .
            then show ?thesis using win_first[OF ww inc2win[OF r]] wg_in_scope[OF ww] own by auto
          next
            case remote
            have v: "visible ?i" using r by simp
            have rc: "rr_code ?xs ?n" using rr_step[OF rows(1,2) rrw rows(3) t z(1) v kdef] remote ie(1) ep by simp
            have "dv L (Acc t1 k1 True) = dv L e"
              using rmw_wr_conflict[OF rml rmw_parts(1)[OF ac1] tk(3) _ a[THEN conjunct2, THEN conjunct2, THEN conjunct2]]
                ep by simp
            then have "w \<in> wgs_in L DV (wg_of L t)" using w1 tk(2) ep by (simp add: dv_def wgs_in_def)
            then show ?thesis using rr_wait[OF rc z(1)] r by simp
          next
            case rstore
            obtain sc1 r1 x1 where c: "ins P t ?k = Op (Store sc1 True) r1 x1" using rstore ep by (auto simp: rstore_ev_def)
            have "visible ?i" using r by simp
            then show ?thesis using ik rstore_access[OF rows(2) c] r by simp
          qed
          then show "\<exists>sc. held ?xs (Suc ?n) = Some sc \<and> w \<in> wgs_in L sc (wg_of L t)"
            "win_in L ?xs (Suc ?n) (wg_of L t) w" by blast+
        qed
        have "l2_win L S P s' w x" unfolding l2_win_def
          using t r pc' wait by (intro exI[of _ t] exI[of _ ?n]) auto
        then show ?thesis by blast
      qed
    qed
    from step_l1[OF st rows(1-3) gv ww r'] consider
        (same) "readable (l1 s w x)" "h1 g' w x = h1 g w x" "\<forall>sc. ?i = INVL1 sc \<longrightarrow> w \<noteq> wg_of L t"
      | (new) "w = wg_of L t" "(\<exists>v. ?i = ST v x) \<or> (\<exists>r. ?i = INCL1 r x)" "\<exists>p. h1 g' w x = Acc t ?k p"
      by blast
    then show "sb L g' e (h1 g' w x)"
    proof cases
      case new
      obtain p where hp: "h1 g' w x = Acc t ?k p" using new(3) by blast
      show ?thesis
      proof (cases "done_ev S P s e")
        case False
        have "h1 g' w x = e" using neww[OF False] a by blast
        then show ?thesis by simp
      next
        case True
        have we: "wx S P s x e" using a True by (auto simp: wx_def)
        have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
        have wx': "wx S P s' x e" using a by blast
        have "wide_ev P e \<and> rstore_ev P e \<longrightarrow> ga2 g' e \<noteq> None" using rs_in_l2[OF rs' ei' rml wp l1l wx'] a by blast
        then have rse: "wide_ev P e \<and> rstore_ev P e \<longrightarrow> ga2 g e \<noteq> None" using se(4)[OF True] by simp
        have home: "(ga2 g e = None \<longrightarrow> ewg L e = Some w) \<and> (ga3 g e = None \<longrightarrow> dv L e = Some (dev_of L w))"
          using l1_loc_home[OF inv sc rr rl rows(3) rml at l1l we rse] by blast
        have hw: "wx S P s' x (h1 g' w x)" using h1_wx[OF li' r'] .
        have nd: "\<not> done_ev S P s (Acc t ?k p)" by simp
        have hd: "is_wr P (Acc t ?k p)" "done_ev S P s' (Acc t ?k p)" using hw hp by (auto simp: wx_def)
        have g3: "clk g < gt g' (Acc t ?k p)" "ga3 g' (Acc t ?k p) = None"
          using gs2 hd nd by blast+
        have "\<not> (\<exists>r x. ?i = INCL2 r x)" using new(2) by auto
        then have g2: "ga2 g' (Acc t ?k p) = None" using gs2 hd nd by blast
        have ew: "ewg L (Acc t ?k p) = Some w" using new(1) by simp
        have o: "gt g' e = gt g e" "ga2 g' e = ga2 g e" "ga3 g' e = ga3 g e" using se(4)[OF True] by simp_all
        have "sb L g' e (Acc t ?k p)"
          using sb_new_line[OF ti c0 we home[THEN conjunct1] home[THEN conjunct2] o g2 g3(2) ew g3(1)] .
        then show ?thesis using hp by simp
      qed
    next
      case same
      have nw: "\<not> l2_win L S P s w x"
      proof
        assume "l2_win L S P s w x"
        then obtain u q sc where u: "u \<in> src_threads P" "q < pc s u"
            "(\<exists>r. instrs (compile S P) u ! q = INCL2 r x)
              \<or> (\<exists>v. instrs (compile S P) u ! q = ST v x) \<and> rs_code (instrs (compile S P) u) q"
            "\<forall>m. q < m \<and> m < pc s u \<longrightarrow> calm (instrs (compile S P) u ! m)"
            "held (instrs (compile S P) u) (pc s u) = Some sc" "w \<in> wgs_in L sc (wg_of L u)"
            "win_in L (instrs (compile S P) u) (pc s u) (wg_of L u) w"
          unfolding l2_win_def by blast
        show False
        proof (cases "u = t")
          case False
          then have "l2_win L S P s' w x" unfolding l2_win_def
            using u pc' by (intro exI[of _ u] exI[of _ q]) auto
          then show False using a by blast
        next
          case ut: True
          show False
          proof (cases "visible ?i")
            case True
            then show False using visible_no_win[OF z(1)] win_in_win[OF u(7)] ut by simp
          next
            case nv: False
            show False
            proof (cases "\<exists>sc. ?i = INVL1 sc")
              case True
              then obtain sc1 where i1: "?i = INVL1 sc1" by blast
              obtain j sc2 where j: "pc s t \<le> j" "?xs ! j = INVL1 sc2" "w \<in> wgs_in L sc2 (wg_of L t)"
                  "\<forall>m. pc s t \<le> m \<and> m < j \<longrightarrow> calm (?xs ! m)"
                using u(7) ut unfolding win_in_def by blast
              have "j = pc s t"
              proof (rule ccontr)
                assume "j \<noteq> pc s t"
                then have "calm ?i" using j(1,4) by simp
                then show False using i1 by simp
              qed
              then have "w \<in> wgs_in L sc1 (wg_of L t)" using j(2,3) i1 by simp
              then show False using step_invl1[OF st rows(1-3) i1] r' by blast
            next
              case False
              have q: "calm ?i" using nv z(4) False quiet_calm by blast
              have wn: "win_in L ?xs (Suc ?n) (wg_of L t) w" using win_in_Suc[OF _ q] u(7) ut by simp
              have cm: "\<forall>m. q < m \<and> m < Suc ?n \<longrightarrow> calm (?xs ! m)"
                using u(4) q ut by (auto simp: less_Suc_eq)
              have hn: "held ?xs (Suc ?n) \<noteq> None"
              proof (cases "\<exists>r. ?xs ! q = INCL2 r x")
                case True
                then obtain r where r: "?xs ! q = INCL2 r x" by blast
                have c3: "q < Suc ?n \<and> ?xs ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < Suc ?n \<longrightarrow> calm (?xs ! m))
                    \<and> win ?xs (Suc ?n)" using u(2) r ut cm win_in_win[OF wn] by simp
                show ?thesis
                  using bspec[OF lkc3 t, THEN spec[of _ q], THEN spec[of _ "Suc ?n"], THEN spec[of _ r], THEN spec[of _ x],
                    THEN mp, OF c3] .
              next
                case False
                \<comment> \<open>after a remote store its lock stays up to the invalidation ahead\<close>
                then have rc: "rs_code ?xs q" using u(3) ut by blast
                obtain j sc2 where j: "Suc ?n \<le> j" "j < length ?xs" "?xs ! j = INVL1 sc2"
                    "\<forall>m. Suc ?n \<le> m \<and> m < j \<longrightarrow> calm (?xs ! m)"
                  using wn unfolding win_in_def by blast
                have cj: "\<forall>i. q < i \<and> i < j \<longrightarrow> calm (?xs ! i)"
                proof (intro allI impI)
                  fix i assume "q < i \<and> i < j"
                  then show "calm (?xs ! i)" using cm j(4) by (cases "i < Suc ?n") auto
                qed
                have qs: "q < Suc ?n" using u(2) ut by simp
                have qj: "q < j" using qs j(1) by simp
                have "Suc ?n < length ?xs" using j(1,2) by simp
                then have "held ?xs (Suc ?n) = held ?xs q" using rs_codeD(2)[OF rc j(2) qj j(3) cj] qs j(1) by blast
                moreover have "held ?xs q \<noteq> None" using rs_code_rr[OF rc] unfolding rr_code_def by blast
                ultimately show ?thesis by simp
              qed
              have lo: "lock_ok (held ?xs ?n) ?i" using disciplined_at[OF dt z(1)] .
              have hs: "held ?xs (Suc ?n) = held ?xs ?n"
                using held_Suc[OF z(1)] hn lo u(5) ut by (cases ?i) auto
              have "l2_win L S P s' w x" unfolding l2_win_def
                using u ut pc' wn cm hs by (intro exI[of _ t] exI[of _ q]) auto
              then show False using a by blast
            qed
          qed
        qed
      qed
      show ?thesis
      proof (cases "done_ev S P s e")
        case True
        have we: "wx S P s x e" using a True by (auto simp: wx_def)
        have "sb L g e (h1 g w x)" using ln a same(1) nw we unfolding ln_ok_def by blast
        moreover have hd: "done_ev S P s (h1 g w x)" using wx_done[OF h1_wx[OF li same(1)]] .
        moreover have "sb L g' e (h1 g w x) = sb L g e (h1 g w x)"
          by (rule sb_cong) (use se(4)[OF True] se(4)[OF hd] in simp_all)
        ultimately show ?thesis using same(2) by simp
      next
        case False
        then have "h1 g' w x = e" using neww a by blast
        then show ?thesis by simp
      qed
    qed
  qed
qed

section \<open>RMWs in the L1 are atomic\<close>

definition at1_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_op set \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "at1_ok L S B P s g \<longleftrightarrow> (\<forall>t k. at_l1 B P t k \<and> done_ev S P s (Acc t k True) \<longrightarrow> rmw_sb L S P s g t k)"

lemma at1_ok_initial: "at1_ok L S B P (initial (src_init P)) (ghost0 P)"
  by (simp add: at1_ok_def)

lemma at1_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and ei: "ev_inv S P s g"
    and at: "at1_ok L S B P s g"
  shows "at1_ok L S B P s' g'"
  unfolding at1_ok_def
proof (intro allI impI)
  fix t k assume a: "at_l1 B P t k \<and> done_ev S P s' (Acc t k True)"
  have d: "done_ev S P s (Acc t k True)" using a done_same[OF pc] by simp
  have ac: "acc P t k True" using a by (simp add: at_l1_def)
  have "rmw_sb L S P s g t k" using at a d unfolding at1_ok_def by blast
  then show "rmw_sb L S P s' g' t k" using rmw_sb_env[OF pc m k ei ac d] by blast
qed

text \<open>A thread step: a write in the L1 of the RMW's work-group comes after the
  RMW's; an increment at the L2 of its location, by that work-group or by a
  remote RMW of its device, or a remote store of its device (no other
  writes it), comes after its flush of that L1 while holding its rmw
  lock, so the RMW's write had reached the L2 (flk_ok); a new RMW in the L1 holds the lock, so no thread waits after an
  increment at the L2 for the invalidation of that L1, and its line is
  settled after every write (ln_ok).\<close>
lemma at1_thread:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and wp: "well_placed L P"
    and sc: "scoped_conflicts L P" and rr: "rel_rows S A B" and rl: "rl_rows S A B" and rrw: "rr_rows S A B"
    and rml: "rmw_local L P"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and lk: "lock_inv L (compile S P) s" and dis: "\<forall>u \<in> src_threads P. disciplined (instrs (compile S P) u)"
    and lkc1: "\<forall>u \<in> src_threads P. \<forall>p r x. p < length (instrs (compile S P) u) \<and> instrs (compile S P) u ! p = INCL1 r x
       \<longrightarrow> held (instrs (compile S P) u) p \<noteq> None \<and> \<not> lk_flushed (instrs (compile S P) u) p"
    and lkc2: "\<forall>u \<in> src_threads P. \<forall>p r x. p < length (instrs (compile S P) u) \<and> instrs (compile S P) u ! p = INCL2 r x
       \<longrightarrow> lk_flushed (instrs (compile S P) u) p"
    and l2: "l2_ok L S P s g" and fl: "flk_ok L S B P s g" and ln: "ln_ok L S B P s g" and at: "at1_ok L S B P s g"
    and at2: "at2_ok L S B P s g"
  shows "at1_ok L S B P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ti: "time_inv S P s g" and li: "lines_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have c0: "0 < clk g" using l2 by (simp add: l2_ok_def)
  have ww: "wg_of L t \<in> wgs L" using wp t by (simp add: well_placed_def)
  have tq: "t \<in> threads (compile S P)" using t by (simp add: compile_def)
  have dt: "disciplined ?xs" using dis t by blast
  have kdef: "length (filter visible (take ?n ?xs)) = ?k" by (simp add: kd_def)
  have gs2: "\<forall>e. is_wr P e \<and> done_ev S P s' e \<and> \<not> done_ev S P s e \<longrightarrow> clk g < gt g' e \<and> ga3 g' e = None"
    using gs by (simp add: gstep_def)
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have old_sb: "sb L g' a b = sb L g a b" if "done_ev S P s a" "done_ev S P s b" for a b
    using se(4)[OF that(1)] se(4)[OF that(2)] by (intro sb_cong) simp_all
  have new_w: "\<exists>p. w = Acc t ?k p" if "wx S P s' y w" "\<not> wx S P s y w" for y w
    using that se(1)[of w] by (auto simp: wx_def)
  show ?thesis
    unfolding at1_ok_def rmw_sb_def
  proof (intro allI impI)
    fix t1 k1 x w assume a: "at_l1 B P t1 k1 \<and> done_ev S P s' (Acc t1 k1 True)"
      and xw: "sloc P (Acc t1 k1 True) = Some x \<and> wx S P s' x w"
    have ac: "acc P t1 k1 True" using a by (simp add: at_l1_def)
    note p = rmw_parts[OF ac]
    have t1: "t1 \<in> src_threads P" using ac by (simp add: acc_def)
    have w1: "wg_of L t1 \<in> wgs L" using wp t1 by (simp add: well_placed_def)
    have l1l: "l1_loc L B P (wg_of L t1) x" using a xw unfolding l1_loc_def by blast
    have wy: "wx S P s' x w" using xw by blast
    show "w = grf g' (Acc t1 k1 False) \<or> w = Acc t1 k1 True \<or> sb L g' w (grf g' (Acc t1 k1 False))
      \<or> sb L g' (Acc t1 k1 True) w"
    proof (cases "done_ev S P s (Acc t1 k1 True)")
      case old: True
      have dr: "done_ev S P s (Acc t1 k1 False)" using old by simp
      have gr: "grf g' (Acc t1 k1 False) = grf g (Acc t1 k1 False)" using se(3)[OF dr] .
      have wg: "wx S P s x (grf g (Acc t1 k1 False))" using rmw_wx(2)[OF ei ac old] xw by blast
      have we1: "wx S P s x (Acc t1 k1 True)" using rmw_wx(1)[OF ei ac old] xw by blast
      show ?thesis
      proof (cases "wx S P s x w")
        case True
        then have "w = grf g (Acc t1 k1 False) \<or> w = Acc t1 k1 True \<or> sb L g w (grf g (Acc t1 k1 False))
            \<or> sb L g (Acc t1 k1 True) w"
          using at a old xw unfolding at1_ok_def rmw_sb_def by blast
        then show ?thesis using old_sb[OF wx_done[OF True] wx_done[OF wg]] old_sb[OF old wx_done[OF True]] gr by auto
      next
        case False
        obtain p' where wp': "w = Acc t ?k p'" using new_w[OF wy False] by blast
        have iw: "is_wr P w" "done_ev S P s' w" "\<not> done_ev S P s w" using wy False by (auto simp: wx_def wp')
        have w3: "clk g < gt g' w" "ga3 g' w = None" using gs2 iw by blast+
        have swx: "sloc P w = Some x" using wx_loc[OF wy] .
        have vis: "visible ?i" using se(1)[OF _ iw(3)] iw(2) wp' by auto
        obtain y0 where y0: "sloc P w = Some y0 \<and> (\<exists>p. w = Acc t ?k p)
          \<and> ((((\<exists>v. ?i = ST v y0) \<or> (\<exists>r. ?i = INCL1 r y0)) \<and> ga2 g' w = None \<and> h1 g' (wg_of L t) y0 = w)
            \<or> ((\<exists>r. ?i = INCL2 r y0) \<and> ga2 g' w = Some (gt g' w) \<and> h2 g' (dev_of L (wg_of L t)) y0 = w))"
          using se(7)[OF iw] by blast
        have y: "y0 = x" using y0 swx by simp
        have o: "gt g' (Acc t1 k1 True) = gt g (Acc t1 k1 True)" "ga2 g' (Acc t1 k1 True) = ga2 g (Acc t1 k1 True)"
          "ga3 g' (Acc t1 k1 True) = ga3 g (Acc t1 k1 True)" using se(4)[OF old] by simp_all
        have home: "(ga2 g (Acc t1 k1 True) = None \<longrightarrow> ewg L (Acc t1 k1 True) = Some (wg_of L t1))
            \<and> (ga3 g (Acc t1 k1 True) = None \<longrightarrow> dv L (Acc t1 k1 True) = Some (dev_of L (wg_of L t1)))
            \<and> (ga2 g (Acc t1 k1 True) = None \<longrightarrow> ga3 g (Acc t1 k1 True) = None)"
          using l1_loc_home[OF inv sc rr rl rows(3) rml at2 l1l we1] ac
            wr_part[of "ins P t1 k1"] rd_part[of "ins P t1 k1" True] by (auto simp: acc_def rstore_ev_def)
        have lt: "gt g (Acc t1 k1 True) < clk g" using gt_lt[OF ti c0 we1] .
        have dvw: "dv L (Acc t1 k1 True) = dv L w" using rmw_wr_conflict[OF rml p(1) _ _ wy] xw wp' by simp
        from l1_loc_excl[OF sc rr rows(3) l1l iw(1) swx] wp'
        consider (own) "wg_of L t = wg_of L t1" | (remote) "racq_ev P w" | (rstore) "wide_ev P w \<and> rstore_ev P w"
          by auto
        note wk = this
        show ?thesis
        proof (cases "\<exists>r. ?i = INCL2 r x")
          case False
          then have g2: "ga2 g' w = None" using y0 y by blast
          show ?thesis
          proof (cases rule: wk)
            case own
            have "sb L g' (Acc t1 k1 True) w"
              by (rule sb_fresh1) (use home o g2 w3 own wp' lt in simp_all)
            then show ?thesis by blast
          next
            case remote
            have "?i = src_access B (src_code P t ! ?k)" using se(2) vis by blast
            then show ?thesis using racq_incl2[OF rl rows(3) remote iw(1) wp' swx] False by auto
          next
            case rstore
            \<comment> \<open>a remote store of another work-group: its row flushed the RMW's L1 under its lock before it\<close>
            have "rs_code ?xs ?n"
              by (rule rs_step[OF rows(1,2) rrw rows(3) t z(1) vis kdef, where p=p']) (use rstore wp' in simp_all)
            then have rc: "rr_code ?xs ?n" by (rule rs_code_rr)
            have "wg_of L t1 \<in> wgs_in L DV (wg_of L t)" using w1 dvw wp' by (simp add: dv_def wgs_in_def)
            then have lf: "lk_flushed_for L ?xs ?n (wg_of L t) (wg_of L t1)" using rr_flushed[OF dt rc] z(1) by simp
            have nf: "Flush t \<notin> set (l1_fifo s (wg_of L t1))" using z(3) w1 by (auto simp: unflushed_def)
            have "Acc t1 k1 True \<notin> pend1 L S P s g (wg_of L t1) x" using flk_use[OF fl t lf nf] a by blast
            then have a2: "ga2 g (Acc t1 k1 True) \<noteq> None" using we1 by (auto simp: pend1_def)
            have "the (ga2 g (Acc t1 k1 True)) < clk g" using time_perf[OF ti we1] a2 by auto
            then have "sb L g' (Acc t1 k1 True) w"
              using sb_after_l2[of g' "Acc t1 k1 True" "clk g" w] a2 o w3 g2 dvw by simp
            then show ?thesis by blast
          qed
        next
          case True
          then obtain r where r: "?i = INCL2 r x" by blast
          have lf: "lk_flushed_for L ?xs ?n (wg_of L t) (wg_of L t1)"
          proof (cases rule: wk)
            case own
            have c2: "?n < length ?xs \<and> ?xs ! ?n = INCL2 r x" using z(1) r by (intro conjI)
            have "lk_flushed ?xs ?n"
              using bspec[OF lkc2 t, THEN spec[of _ ?n], THEN spec[of _ r], THEN spec[of _ x], THEN mp, OF c2] .
            then show ?thesis using lk_flushed_own[OF dt ww] own by simp
          next
            case remote
            have rc: "rr_code ?xs ?n" using rr_step[OF rows(1,2) rrw rows(3) t z(1) vis kdef] remote iw(1) wp' by simp
            have "wg_of L t1 \<in> wgs_in L DV (wg_of L t)" using w1 dvw wp' by (simp add: dv_def wgs_in_def)
            then show ?thesis using rr_flushed[OF dt rc] z(1) by simp
          next
            case rstore
            obtain sc1 r1 x1 where c: "ins P t ?k = Op (Store sc1 True) r1 x1" using rstore wp' by (auto simp: rstore_ev_def)
            have "?i = src_access B (src_code P t ! ?k)" using se(2) vis by blast
            then show ?thesis using rstore_access[OF rows(2) c] r by simp
          qed
          have nf: "Flush t \<notin> set (l1_fifo s (wg_of L t1))" using z(3) w1 by (auto simp: unflushed_def)
          have "Acc t1 k1 True \<notin> pend1 L S P s g (wg_of L t1) x" using flk_use[OF fl t lf nf] a by blast
          then have a2: "ga2 g (Acc t1 k1 True) \<noteq> None" using we1 by (auto simp: pend1_def)
          have g2: "ga2 g' w = Some (gt g' w)" using y0 y r by auto
          have "the (ga2 g (Acc t1 k1 True)) < clk g" using time_perf[OF ti we1] a2 by auto
          then have "sb L g' (Acc t1 k1 True) w"
            using sb_after_l2[of g' "Acc t1 k1 True" "clk g" w] a2 o w3 g2 dvw by simp
          then show ?thesis by blast
        qed
      qed
    next
      case new: False
      have tk: "t1 = t" "k1 = ?k" and vis: "visible ?i" using se(1)[OF _ new] a by auto
      have ik: "?i = src_access B (src_code P t ! ?k)" using se(2) vis by blast
      obtain a0 r0 x0 where a0: "ins P t ?k = Op a0 r0 x0" "a0 \<notin> B" using a tk by (auto simp: at_l1_def)
      obtain sc0 rm r0' x0' where fi: "ins P t ?k = Op (FetchInc sc0 rm) r0' x0'"
        using ac tk wr_part[of "ins P t ?k"] rd_part[of "ins P t ?k" True] by (auto simp: acc_def)
      have fa: "a0 = FetchInc sc0 rm" using a0(1) fi by simp
      have x0: "x0 = x" using a0(1) xw tk by simp
      have ii: "?i = INCL1 r0 x" using ik a0 fa x0 by (simp add: ins_def access_def)
      have dr: "done_ev S P s' (Acc t ?k False)" using a tk by simp
      obtain y0 r1 where "sloc P (Acc t ?k False) = Some y0 \<and> (((?i = LD r1 y0 \<or> ?i = INCL1 r1 y0)
          \<and> grf g' (Acc t ?k False) = h1 g (wg_of L t) y0 \<and> readable (l1 s (wg_of L t) y0))
        \<or> (?i = INCL2 r1 y0 \<and> grf g' (Acc t ?k False) = h2 g (dev_of L (wg_of L t)) y0
          \<and> readable (l2 s (dev_of L (wg_of L t)) y0)))"
        using se(6) p(2) dr tk by blast
      then have rd: "grf g' (Acc t ?k False) = h1 g (wg_of L t) x" "readable (l1 s (wg_of L t) x)"
        using ii by auto
      have nw: "\<not> l2_win L S P s (wg_of L t) x"
      proof
        assume "l2_win L S P s (wg_of L t) x"
        then obtain u sc where u: "u \<in> src_threads P" "held (instrs (compile S P) u) (pc s u) = Some sc"
            "wg_of L t \<in> wgs_in L sc (wg_of L u)" "win_in L (instrs (compile S P) u) (pc s u) (wg_of L u) (wg_of L t)"
          unfolding l2_win_def by blast
        have uq: "u \<in> threads (compile S P)" using u(1) by (simp add: compile_def)
        have lu: "rmw_lock s (wg_of L t) = Some u" using lock_invD1[OF lk uq u(2,3)] .
        have c1: "?n < length ?xs \<and> ?xs ! ?n = INCL1 r0 x" using z(1) ii by (intro conjI)
        have ht: "held ?xs ?n \<noteq> None"
          using bspec[OF lkc1 t, THEN spec[of _ ?n], THEN spec[of _ r0], THEN spec[of _ x], THEN mp, OF c1, THEN conjunct1] .
        have lt: "rmw_lock s (wg_of L t) = Some t" using own_lock[OF lk tq ht ww] .
        then have ut: "u = t" using lu by simp
        have "\<not> win ?xs ?n" using visible_no_win[OF z(1) vis] .
        then show False using win_in_win[OF u(4)] ut by simp
      qed
      show ?thesis
      proof (cases "w = Acc t1 k1 True")
        case False
        have w: "wx S P s x w"
        proof (rule ccontr)
          assume nw': "\<not> wx S P s x w"
          obtain p' where wp': "w = Acc t ?k p'" using new_w[OF wy nw'] by blast
          have "is_wr P w" using wy nw' by (auto simp: wx_def wp')
          then have "p' = True" using wp' fi tk
            by (cases p') (auto simp: acc_def)
          then show False using False wp' tk by simp
        qed
        have l1t: "l1_loc L B P (wg_of L t) x" using l1l tk by simp
        have "sb L g w (h1 g (wg_of L t) x)" using ln l1t rd(2) nw w unfolding ln_ok_def by blast
        then have "sb L g' w (h1 g (wg_of L t) x)"
          using old_sb[OF wx_done[OF w] wx_done[OF h1_wx[OF li rd(2)]]] by simp
        then show ?thesis using rd(1) tk by simp
      qed simp
    qed
  qed
qed

section \<open>Every RMW is atomic\<close>

text \<open>The code-level facts the locks give: an increment in the L1 inside an
  rmw bracket with no flush of the L1 before it there; an increment at the
  L2 after such a flush; the wait for the invalidation after it inside the
  bracket too, and that invalidation in the code (rsp-new's LKrmw WG;
  FLUL1 WG; INCL2; INVL1 WG; UNLKrmw WG and LKrmw WG; INCL1; UNLKrmw WG).\<close>
definition lk_code :: "instr list \<Rightarrow> bool" where
  "lk_code c \<longleftrightarrow> disciplined c
     \<and> (\<forall>p r x. p < length c \<and> c ! p = INCL1 r x \<longrightarrow> held c p \<noteq> None \<and> \<not> lk_flushed c p)
     \<and> (\<forall>p r x. p < length c \<and> c ! p = INCL2 r x \<longrightarrow> lk_flushed c p)
     \<and> (\<forall>q p r x. q < p \<and> c ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (c ! m)) \<and> win c p
        \<longrightarrow> held c p \<noteq> None)
     \<and> (\<forall>q r x. q < length c \<and> c ! q = INCL2 r x \<longrightarrow> win c (Suc q))"

lemma lk_codeD1: "lk_code c \<Longrightarrow> disciplined c"
  unfolding lk_code_def by (elim conjE) assumption

lemma lk_codeD2: "lk_code c \<Longrightarrow> \<forall>p r x. p < length c \<and> c ! p = INCL1 r x \<longrightarrow> held c p \<noteq> None \<and> \<not> lk_flushed c p"
  unfolding lk_code_def by (elim conjE) assumption

lemma lk_codeD3: "lk_code c \<Longrightarrow> \<forall>p r x. p < length c \<and> c ! p = INCL2 r x \<longrightarrow> lk_flushed c p"
  unfolding lk_code_def by (elim conjE) assumption

lemma lk_codeD4: "lk_code c \<Longrightarrow> \<forall>q p r x. q < p \<and> c ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (c ! m))
    \<and> win c p \<longrightarrow> held c p \<noteq> None"
  unfolding lk_code_def by (elim conjE) assumption

lemma lk_codeD5: "lk_code c \<Longrightarrow> \<forall>q r x. q < length c \<and> c ! q = INCL2 r x \<longrightarrow> win c (Suc q)"
  unfolding lk_code_def by (elim conjE) assumption

text \<open>An increment at the L2 that an acquire row invalidates after is
  invalidated after in Hrf_Coherence's sense too.\<close>
lemma ia_iv: "ia_seq p xs \<Longrightarrow> (q \<longrightarrow> p) \<Longrightarrow> iv_seq q xs"
proof (induction xs arbitrary: p q)
  case Nil
  then show ?case by auto
next
  case (Cons i xs)
  then show ?case by (cases i) auto
qed

lemma acq_l2_invalidated:
  assumes "acq_rows S A B"
  shows "l2_invalidated S B"
  unfolding l2_invalidated_def
proof
  fix a assume "a \<in> B"
  then obtain rw where "S a = Some rw" "inv_after rw" using assms unfolding acq_rows_def by blast
  then show "\<exists>rw. S a = Some rw \<and> (\<forall>r x. iv_seq False (rw r x))"
    using ia_iv[of False _ False] unfolding inv_after_def by blast
qed

text \<open>Every invariant at once, for one ghost: Hrf_Coherence's and
  Hrf_Happens's with the locks' (so one candidate has every property
  they give).\<close>
lemma rsp_reachable:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
      "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    and wp: "well_placed L P" and sc: "scoped_conflicts L P" and ds: "dev_sys L P"
    and lc: "\<forall>u \<in> src_threads P. lk_code (instrs (compile S P) u)"
  shows "\<exists>g. ginv L S P s g \<and> oinv L S P s g \<and> wr_ok L S P s g \<and> l2_ok L S P s g \<and> hb_ok L S P s g
    \<and> kw_ok L S P s g \<and> kl_ok L S P s g \<and> kr_ok L S P s g \<and> lock_inv L (compile S P) s
    \<and> flk_ok L S B P s g \<and> ln_ok L S B P s g \<and> at1_ok L S B P s g \<and> at2_ok L S B P s g \<and> rp_ok L S P s g
    \<and> rs_ok S P s g \<and> mr_ok L S P s g \<and> kl2_ok L S P s g"
proof -
  have lkc1: "\<forall>u \<in> src_threads P. \<forall>p r x. p < length (instrs (compile S P) u) \<and> instrs (compile S P) u ! p = INCL1 r x
       \<longrightarrow> held (instrs (compile S P) u) p \<noteq> None \<and> \<not> lk_flushed (instrs (compile S P) u) p"
  proof
    fix u assume u: "u \<in> src_threads P"
    show "\<forall>p r x. p < length (instrs (compile S P) u) \<and> instrs (compile S P) u ! p = INCL1 r x
       \<longrightarrow> held (instrs (compile S P) u) p \<noteq> None \<and> \<not> lk_flushed (instrs (compile S P) u) p"
      using lk_codeD2[OF bspec[OF lc u]] .
  qed
  have lkc2: "\<forall>u \<in> src_threads P. \<forall>p r x. p < length (instrs (compile S P) u) \<and> instrs (compile S P) u ! p = INCL2 r x
       \<longrightarrow> lk_flushed (instrs (compile S P) u) p"
  proof
    fix u assume u: "u \<in> src_threads P"
    show "\<forall>p r x. p < length (instrs (compile S P) u) \<and> instrs (compile S P) u ! p = INCL2 r x
       \<longrightarrow> lk_flushed (instrs (compile S P) u) p"
      using lk_codeD3[OF bspec[OF lc u]] .
  qed
  have lkc3: "\<forall>u \<in> src_threads P. \<forall>q p r x. q < p \<and> instrs (compile S P) u ! q = INCL2 r x
       \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (instrs (compile S P) u ! m)) \<and> win (instrs (compile S P) u) p
       \<longrightarrow> held (instrs (compile S P) u) p \<noteq> None"
  proof
    fix u assume u: "u \<in> src_threads P"
    show "\<forall>q p r x. q < p \<and> instrs (compile S P) u ! q = INCL2 r x
       \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (instrs (compile S P) u ! m)) \<and> win (instrs (compile S P) u) p
       \<longrightarrow> held (instrs (compile S P) u) p \<noteq> None"
      using lk_codeD4[OF bspec[OF lc u]] .
  qed
  have thr: "threads (compile S P) = src_threads P" by (simp add: compile_def)
  have dis: "\<forall>u \<in> threads (compile S P). disciplined (instrs (compile S P) u)"
  proof
    fix u assume "u \<in> threads (compile S P)"
    then have u: "u \<in> src_threads P" using thr by simp
    show "disciplined (instrs (compile S P) u)" using lk_codeD1[OF bspec[OF lc u]] .
  qed
  have dis': "\<forall>u \<in> src_threads P. disciplined (instrs (compile S P) u)"
    using dis thr by simp
  have iv: "l2_invalidated S B" using acq_l2_invalidated[OF rows(5)] .
  have rml: "rmw_local L P" using dev_sys_rmw[OF ds rows(3) mem_rows_no_sys_rmw[OF rows(10)]] .
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using reach by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    show ?case
      by (intro exI[of _ "ghost0 P"] conjI ginv_initial oinv_initial wr_ok_initial l2_ok_initial hb_ok_initial
          kw_ok_initial kl_ok_initial kr_ok_initial lock_inv_initial flk_ok_initial ln_ok_initial at1_ok_initial
          at2_ok_initial rp_ok_initial rs_ok_initial mr_ok_initial kl2_ok_initial)
  next
    case (step s1 s2)
    then obtain g where g: "ginv L S P s1 g" "oinv L S P s1 g" "wr_ok L S P s1 g" "l2_ok L S P s1 g"
        "hb_ok L S P s1 g" "kw_ok L S P s1 g" "kl_ok L S P s1 g" "kr_ok L S P s1 g" "lock_inv L (compile S P) s1"
        "flk_ok L S B P s1 g" "ln_ok L S B P s1 g" "at1_ok L S B P s1 g" "at2_ok L S B P s1 g" "rp_ok L S P s1 g"
        "rs_ok S P s1 g" "mr_ok L S P s1 g" "kl2_ok L S P s1 g"
      by blast
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
        using oinv_thread[OF g(1,2) thr rows(1-4) wp] g(3,4) iv by blast
      have hb': "hb_ok L S P s2 g'"
        by (rule hb_thread[OF g(1,2,3) thr rows(1-3,6,8) wp sc g'(1,5,6) g(5) mr_sys[OF g(16) rows(10,3)]])
      have mr': "mr_ok L S P s2 g'"
        by (rule mr_thread[OF g(1,2) _ thr rows(1-3,10) wp g'(1,5,6) g(16)]) (use g(5) in \<open>simp add: hb_ok_def\<close>)
      have rs': "rs_ok S P s2 g'" by (rule rs_thread[OF g(1,2,5) thr rows(1-3,9) wp g'(5,6) g(15)])
      have "kw_ok L S P s2 g'" by (rule kw_thread[OF g(1,2,3) thr rows(1-4) rows(8) wp g'(1,5,6) g(5) hb' g(6)])
      moreover have "kl_ok L S P s2 g' \<and> kr_ok L S P s2 g'"
        by (rule kl_thread[OF g(1,2,3) thr rows(1-3,5,4,8) wp sc ds g'(1,5,6) g(4,5,6,7,8,14,17)])
      moreover have "rp_ok L S P s2 g'"
        by (rule rp_thread[OF g(1,2) _ thr rows(1-3,7) wp rows(11) g'(1,5,6) _ g(14,17)])
          (use g(3,5) wr_okD(1) in \<open>simp_all add: hb_ok_def\<close>)
      moreover have "lock_inv L (compile S P) s2" using thread_lock_inv[OF thr(2) g(9) dis] .
      moreover have "flk_ok L S B P s2 g'"
        by (rule flk_thread[OF g(1,2) thr rows(1-3) wp g'(5,6) g(9) lkc1 g(10)])
      moreover have "ln_ok L S B P s2 g'"
        by (rule ln_thread[OF g(1) g'(1) thr rows(1-3,5) wp sc rows(6,8,9) rml g'(5,6) dis' lkc3 g(4,13,11) rs'])
      moreover have "at1_ok L S B P s2 g'"
        by (rule at1_thread[OF g(1) thr rows(1-3) wp sc rows(6,8,9) rml g'(5,6) g(9) dis' lkc1 lkc2 g(4,10,11,12,13)])
      moreover have "at2_ok L S B P s2 g'" by (rule at2_thread[OF g(1) thr rows(1-3) rml g'(5,6) g(4,13)])
      moreover have "kl2_ok L S P s2 g'"
        by (rule kl2_thread[OF g(1,3) thr rows(1-3,11) mem_rows_no_sys_rmw[OF rows(10)] wp g'(1,5,6) _ g(17)])
          (use g(5) in \<open>simp add: hb_ok_def\<close>)
      ultimately show ?thesis using g' hb' rs' mr' by blast
    next
      case env
      have c0: "0 < clk g" using g(4) by (simp add: l2_ok_def)
      obtain g' where g': "ginv L S P s2 g'" "oinv L S P s2 g'" "wr_ok L S P s2 g'" "l2_ok L S P s2 g'"
          "env_mono g g'" "sb_keep L S P s1 g g'" "l1_env L s1 s2 g g'" "fifo_env L S P s1 s2 g g'"
          "fifo2_env L S P s1 s2 g g'" "l2_env L s1 s2 g g'"
        using oinv_env[OF g(1,2) env] g(3,4) c0 by blast
      have pcl: "regs s2 = regs s1 \<and> pc s2 = pc s1 \<and> rmw_lock s2 = rmw_lock s1" using env_step_regs_pc_locks[OF env] .
      then have pc: "pc s2 = pc s1" by simp
      have ei: "ev_inv S P s1 g" using g(1) by (simp add: ginv_def)
      have kh: "kh_ok L S P s1 g" using g(5) by (simp add: hb_ok_def)
      have "hb_ok L S P s2 g'" using hb_env[OF pc g'(5) g(5,2) g'(8)] .
      moreover have "kw_ok L S P s2 g'" using kw_env[OF pc g'(5,6) ei g(6)] .
      moreover have "kl_ok L S P s2 g'" using kl_env[OF pc g'(5,6,7) g(1) kh g(4) ds rows(1-3,5,8) g(7,17)] .
      moreover have "kr_ok L S P s2 g'" using kr_env[OF pc g'(5,6) ei g(8)] .
      moreover have "lock_inv L (compile S P) s2" using lock_inv_cong[of "compile S P" s2 s1] pcl g(9) by simp
      moreover have "flk_ok L S B P s2 g'" by (rule flk_env[OF g(1) env g(10) g'(8)])
      moreover have "ln_ok L S B P s2 g'" using ln_env[OF pc g'(6,7) g(1,4) rml sc rows(6,8,3) g(13,11,15) wp] .
      moreover have "rs_ok S P s2 g'" using rs_env[OF pc g'(5) g(15)] .
      moreover have "at1_ok L S B P s2 g'" using at1_env[OF pc g'(5,6) ei g(12)] .
      moreover have "at2_ok L S B P s2 g'" using at2_env[OF pc g'(5,6) ei g(13)] .
      moreover have "rp_ok L S P s2 g'" using rp_env[OF pc g'(5,6,7,10) g(1,4,14)] .
      moreover have "mr_ok L S P s2 g'" using mr_env[OF pc g'(5,9) wp g(16)] .
      moreover have "kl2_ok L S P s2 g'" using kl2_env[OF pc g'(5,6,10) g(1) kh g(17)] .
      ultimately show ?thesis using g' by blast
    qed
  qed
qed

text \<open>For every race-free program (OpenCL+RSP, as hrf exports it) whose
  remote operations promote nothing, without non-atomic RMWs, of any length and thread count, on
  every layout of one device, under both write-back policies, compiled by
  rows whose device RMWs are performed at the L2 after a flush of the L1
  and before its invalidation, and whose code takes the rmw locks as
  lk_code says (rsp-new's): every final state shows the outcome of a
  candidate (Hrf_Exhibit's) in which every RMW is atomic.\<close>
text \<open>In a final state with the invariants, every RMW is atomic in the
  exhibited candidate: at the L2 by at2_ok, in the L1 by at1_ok.\<close>
lemma final_rmw_atomic:
  assumes g: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and a: "at1_ok L S B P s g" "at2_ok L S B P s g"
  shows "\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P (grf g) (run_co P g) t k"
proof (intro allI impI)
  fix t k assume ac: "acc P t k True"
  note ff = final_facts[OF g(1) fin wp rows(1-3)]
  have d: "done_ev S P s (Acc t k True)" using ff(2)[of "Acc t k True"] ac by simp
  obtain sc0 rm r x where c: "ins P t k = Op (FetchInc sc0 rm) r x"
    using ac wr_part[of "ins P t k"] rd_part[of "ins P t k" True] by (auto simp: acc_def)
  have "rmw_sb L S P s g t k"
  proof (cases "FetchInc sc0 rm \<in> B")
    case True
    then have "at_l2 B P t k" using ac c by (auto simp: at_l2_def)
    then show ?thesis using a(2) d unfolding at2_ok_def rmw_sb_def by blast
  next
    case False
    then have "at_l1 B P t k" using ac c by (auto simp: at_l1_def)
    then show ?thesis using a(1) d unfolding at1_ok_def by blast
  qed
  then show "rmw_atomic P (grf g) (run_co P g) t k" using final_rmw_sb[OF g(1) fin wp rows(1-3) ac] by blast
qed

theorem machine_candidate_rmw_atomic:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
      "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)"
    and wp: "well_placed L P" and ds: "dev_sys L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "load_promotion L P"
    and lc: "\<forall>u \<in> src_threads P. lk_code (instrs (compile S P) u)"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> (\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P (grf g) (run_co P g) t k)"
proof -
  have fs: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fs rem] .
  obtain g where g: "ginv L S P s g" "at1_ok L S B P s g" "at2_ok L S B P s g"
    using rsp_reachable[OF reach rows wp sc ds lc] by blast
  show ?thesis using final_candidate[OF rows(1-3) wp g(1) fin] final_rmw_atomic[OF g(1) fin wp rows(1-3) g(2,3)]
    by blast
qed

corollary machine_outcomes_rmw_atomic:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)" "well_placed L P" "dev_sys L P" "\<not> na_rmw P" "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P"
    "load_promotion L P" "\<forall>u \<in> src_threads P. lk_code (instrs (compile S P) u)"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> {ob. \<exists>rfw cos v. cand_ok P rfw cos v \<and> is_outcome P cos v ob
    \<and> (\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P rfw cos t k)}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
      "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  show "ob \<in> {ob. \<exists>rfw cos v. cand_ok P rfw cos v \<and> is_outcome P cos v ob \<and> (\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P rfw cos t k)}"
    using machine_candidate_rmw_atomic[OF assms s(1,2)] s(3) by blast
qed

section \<open>Rows that take the locks as lk_code says\<close>

text \<open>lk_code is kept by concatenation: a compiled program keeps it when
  every row it is made of does.\<close>

lemma held_append1: "p \<le> length a \<Longrightarrow> held (a @ b) p = held a p"
  by (simp add: held_def)

lemma held_append2: "disciplined a \<Longrightarrow> held (a @ b) (length a + p) = held b p"
  by (simp add: held_def disciplined_def disc_end)

lemma lk_flushed_append1:
  assumes "n \<le> length a"
  shows "lk_flushed (a @ b) n = lk_flushed a n"
proof -
  have e: "(a @ b) ! m = a ! m" if "m < n" for m using that assms by (simp add: nth_append)
  have h: "held (a @ b) j = held a j" if "j < n" for j using that assms by (simp add: held_append1)
  show ?thesis unfolding lk_flushed_def
  proof
    assume "n \<le> length (a @ b) \<and> (\<exists>j<n. (\<exists>sc. (a @ b) ! j = FLUL1 sc) \<and> held (a @ b) j \<noteq> None
        \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet ((a @ b) ! m) \<and> (\<forall>sc. (a @ b) ! m \<noteq> UNLKrmw sc)))"
    then obtain j where j: "j < n" "\<exists>sc. (a @ b) ! j = FLUL1 sc" "held (a @ b) j \<noteq> None"
        "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet ((a @ b) ! m) \<and> (\<forall>sc. (a @ b) ! m \<noteq> UNLKrmw sc)" by blast
    have "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (a ! m) \<and> (\<forall>sc. a ! m \<noteq> UNLKrmw sc)" using j(4) e by simp
    then show "n \<le> length a \<and> (\<exists>j<n. (\<exists>sc. a ! j = FLUL1 sc) \<and> held a j \<noteq> None
        \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (a ! m) \<and> (\<forall>sc. a ! m \<noteq> UNLKrmw sc)))"
      using j(1-3) e[OF j(1)] h[OF j(1)] assms by auto
  next
    assume "n \<le> length a \<and> (\<exists>j<n. (\<exists>sc. a ! j = FLUL1 sc) \<and> held a j \<noteq> None
        \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (a ! m) \<and> (\<forall>sc. a ! m \<noteq> UNLKrmw sc)))"
    then obtain j where j: "j < n" "\<exists>sc. a ! j = FLUL1 sc" "held a j \<noteq> None"
        "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (a ! m) \<and> (\<forall>sc. a ! m \<noteq> UNLKrmw sc)" by blast
    have "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet ((a @ b) ! m) \<and> (\<forall>sc. (a @ b) ! m \<noteq> UNLKrmw sc)" using j(4) e by simp
    then show "n \<le> length (a @ b) \<and> (\<exists>j<n. (\<exists>sc. (a @ b) ! j = FLUL1 sc) \<and> held (a @ b) j \<noteq> None
        \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet ((a @ b) ! m) \<and> (\<forall>sc. (a @ b) ! m \<noteq> UNLKrmw sc)))"
      using j(1-3) e[OF j(1)] h[OF j(1)] assms by auto
  qed
qed

lemma lk_flushed_append2:
  assumes d: "disciplined a"
  shows "lk_flushed (a @ b) (length a + p) = lk_flushed b p"
proof
  assume f: "lk_flushed (a @ b) (length a + p)"
  then obtain j where j: "j < length a + p" "\<exists>sc. (a @ b) ! j = FLUL1 sc" "held (a @ b) j \<noteq> None"
      "\<forall>m. j < m \<and> m < length a + p \<longrightarrow> quiet ((a @ b) ! m) \<and> (\<forall>sc. (a @ b) ! m \<noteq> UNLKrmw sc)"
    unfolding lk_flushed_def by blast
  show "lk_flushed b p"
  proof (cases "j < length a")
    case True
    \<comment> \<open>a flush in a under a lock a still holds at its end: not disciplined\<close>
    have "held a j \<noteq> None" using j(3) True by (simp add: held_append1)
    moreover have "\<forall>m. j \<le> m \<and> m < length a \<longrightarrow> (\<forall>sc. a ! m \<noteq> UNLKrmw sc)"
    proof (intro allI impI)
      fix m sc assume m: "j \<le> m \<and> m < length a"
      show "a ! m \<noteq> UNLKrmw sc"
      proof (cases "m = j")
        case True
        then show ?thesis using j(2) m by (auto simp: nth_append)
      next
        case False
        then have "j < m \<and> m < length a + p" using m by simp
        moreover have "(a @ b) ! m = a ! m" using m by (simp add: nth_append)
        ultimately show ?thesis using j(4)[THEN spec[of _ m]] by simp
      qed
    qed
    ultimately have "held a (length a) \<noteq> None" using held_keep[of a j "length a"] True by simp
    then show ?thesis using held_end[OF d] by simp
  next
    case False
    define j0 where "j0 = j - length a"
    have jj: "j = length a + j0" using False by (simp add: j0_def)
    have "p \<le> length b" using f by (simp add: lk_flushed_def)
    moreover have "j0 < p" using j(1) jj by simp
    moreover have "\<exists>sc. b ! j0 = FLUL1 sc" using j(2) jj by simp
    moreover have "held b j0 \<noteq> None" using j(3) jj held_append2[OF d] by simp
    moreover have "\<forall>m. j0 < m \<and> m < p \<longrightarrow> quiet (b ! m) \<and> (\<forall>sc. b ! m \<noteq> UNLKrmw sc)"
    proof (intro allI impI)
      fix m assume m: "j0 < m \<and> m < p"
      have "j < length a + m \<and> length a + m < length a + p" using m jj by simp
      then show "quiet (b ! m) \<and> (\<forall>sc. b ! m \<noteq> UNLKrmw sc)" using j(4)[THEN spec[of _ "length a + m"]] by simp
    qed
    ultimately show ?thesis unfolding lk_flushed_def by blast
  qed
next
  assume f: "lk_flushed b p"
  then obtain j where j: "j < p" "\<exists>sc. b ! j = FLUL1 sc" "held b j \<noteq> None"
      "\<forall>m. j < m \<and> m < p \<longrightarrow> quiet (b ! m) \<and> (\<forall>sc. b ! m \<noteq> UNLKrmw sc)"
    unfolding lk_flushed_def by blast
  have "length a + p \<le> length (a @ b)" using f by (simp add: lk_flushed_def)
  moreover have "length a + j < length a + p" using j(1) by simp
  moreover have "\<exists>sc. (a @ b) ! (length a + j) = FLUL1 sc" using j(2) by simp
  moreover have "held (a @ b) (length a + j) \<noteq> None" using j(3) held_append2[OF d] by simp
  moreover have "\<forall>m. length a + j < m \<and> m < length a + p \<longrightarrow> quiet ((a @ b) ! m) \<and> (\<forall>sc. (a @ b) ! m \<noteq> UNLKrmw sc)"
  proof (intro allI impI)
    fix m assume m: "length a + j < m \<and> m < length a + p"
    then have "j < m - length a \<and> m - length a < p" by arith
    moreover have "(a @ b) ! m = b ! (m - length a)" using m by (simp add: nth_append)
    ultimately show "quiet ((a @ b) ! m) \<and> (\<forall>sc. (a @ b) ! m \<noteq> UNLKrmw sc)" using j(4) by simp
  qed
  ultimately show "lk_flushed (a @ b) (length a + p)" unfolding lk_flushed_def by blast
qed

lemma win_append1: "win a n \<Longrightarrow> win (a @ b) n"
  unfolding win_def by (auto simp: nth_append)

lemma win_append2: "win (a @ b) (length a + p) = win b p"
proof
  assume "win (a @ b) (length a + p)"
  then obtain j sc where j: "length a + p \<le> j" "j < length (a @ b)" "(a @ b) ! j = INVL1 sc"
      "\<forall>m. length a + p \<le> m \<and> m < j \<longrightarrow> quiet ((a @ b) ! m)"
    unfolding win_def by blast
  have "\<forall>m. p \<le> m \<and> m < j - length a \<longrightarrow> quiet (b ! m)"
  proof (intro allI impI)
    fix m assume m: "p \<le> m \<and> m < j - length a"
    then have "length a + p \<le> length a + m \<and> length a + m < j" using j(1) by arith
    then show "quiet (b ! m)" using j(4)[THEN spec[of _ "length a + m"]] by simp
  qed
  then show "win b p" unfolding win_def using j(1-3)
    by (intro exI[of _ "j - length a"]) (auto simp: nth_append)
next
  assume "win b p"
  then obtain j sc where j: "p \<le> j" "j < length b" "b ! j = INVL1 sc" "\<forall>m. p \<le> m \<and> m < j \<longrightarrow> quiet (b ! m)"
    unfolding win_def by blast
  have "\<forall>m. length a + p \<le> m \<and> m < length a + j \<longrightarrow> quiet ((a @ b) ! m)"
  proof (intro allI impI)
    fix m assume m: "length a + p \<le> m \<and> m < length a + j"
    then have "(a @ b) ! m = b ! (m - length a)" by (simp add: nth_append)
    moreover have "p \<le> m - length a \<and> m - length a < j" using m by arith
    ultimately show "quiet ((a @ b) ! m)" using j(4)[THEN spec[of _ "m - length a"]] by simp
  qed
  then show "win (a @ b) (length a + p)" unfolding win_def using j(1-3)
    by (intro exI[of _ "length a + j"]) auto
qed

text \<open>A disciplined code without increments.\<close>
lemma lk_code_plain:
  assumes d: "disciplined c" and ni: "\<forall>i \<in> set c. \<forall>r x. i \<noteq> INCL1 r x \<and> i \<noteq> INCL2 r x"
  shows "lk_code c"
proof -
  have n: "c ! p \<noteq> INCL1 r x \<and> c ! p \<noteq> INCL2 r x" if "p < length c" for p r x
    using ni nth_mem[OF that] by blast
  have w: "p < length c" if "win c p" for p using that unfolding win_def by auto
  have c4: "\<forall>q p r x. q < p \<and> c ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (c ! m)) \<and> win c p
      \<longrightarrow> held c p \<noteq> None"
  proof (intro allI impI)
    fix q p r x assume h: "q < p \<and> c ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (c ! m)) \<and> win c p"
    then have "q < length c" using w[of p] by simp
    then show "held c p \<noteq> None" using h n by blast
  qed
  show ?thesis unfolding lk_code_def using d n c4 by blast
qed

lemma lk_code_Nil: "lk_code []"
  by (rule lk_code_plain) (simp_all add: disciplined_def)

lemma lk_code_append:
  assumes a: "lk_code a" and b: "lk_code b"
  shows "lk_code (a @ b)"
proof -
  have da: "disciplined a" using lk_codeD1[OF a] .
  note a2 = lk_codeD2[OF a] and a3 = lk_codeD3[OF a] and a4 = lk_codeD4[OF a] and a5 = lk_codeD5[OF a]
  note b2 = lk_codeD2[OF b] and b3 = lk_codeD3[OF b] and b4 = lk_codeD4[OF b] and b5 = lk_codeD5[OF b]
  \<comment> \<open>a position past a is a position of b\<close>
  have split: "\<exists>p0. p = length a + p0" if "\<not> p < length a" for p using that by (intro exI[of _ "p - length a"]) simp
  have c1: "disciplined (a @ b)"
    using da lk_codeD1[OF b] by (simp add: disciplined_def disc_append)
  have c2: "\<forall>p r x. p < length (a @ b) \<and> (a @ b) ! p = INCL1 r x \<longrightarrow> held (a @ b) p \<noteq> None \<and> \<not> lk_flushed (a @ b) p"
  proof (intro allI impI)
    fix p r x assume p: "p < length (a @ b) \<and> (a @ b) ! p = INCL1 r x"
    show "held (a @ b) p \<noteq> None \<and> \<not> lk_flushed (a @ b) p"
    proof (cases "p < length a")
      case True
      then have "a ! p = INCL1 r x" using p by (simp add: nth_append)
      then have "held a p \<noteq> None \<and> \<not> lk_flushed a p" using a2 True by blast
      then show ?thesis using True held_append1[of p a b] lk_flushed_append1[of p a b] by simp
    next
      case False
      then obtain p0 where p0: "p = length a + p0" using split by blast
      then have "p0 < length b \<and> b ! p0 = INCL1 r x" using p by simp
      then have "held b p0 \<noteq> None \<and> \<not> lk_flushed b p0" using b2 by blast
      then show ?thesis using p0 held_append2[OF da] lk_flushed_append2[OF da] by simp
    qed
  qed
  have c3: "\<forall>p r x. p < length (a @ b) \<and> (a @ b) ! p = INCL2 r x \<longrightarrow> lk_flushed (a @ b) p"
  proof (intro allI impI)
    fix p r x assume p: "p < length (a @ b) \<and> (a @ b) ! p = INCL2 r x"
    show "lk_flushed (a @ b) p"
    proof (cases "p < length a")
      case True
      then have "a ! p = INCL2 r x" using p by (simp add: nth_append)
      then have "lk_flushed a p" using a3 True by blast
      then show ?thesis using True lk_flushed_append1[of p a b] by simp
    next
      case False
      then obtain p0 where p0: "p = length a + p0" using split by blast
      then have "p0 < length b \<and> b ! p0 = INCL2 r x" using p by simp
      then have "lk_flushed b p0" using b3 by blast
      then show ?thesis using p0 lk_flushed_append2[OF da] by simp
    qed
  qed
  have c5: "\<forall>q r x. q < length (a @ b) \<and> (a @ b) ! q = INCL2 r x \<longrightarrow> win (a @ b) (Suc q)"
  proof (intro allI impI)
    fix q r x assume q: "q < length (a @ b) \<and> (a @ b) ! q = INCL2 r x"
    show "win (a @ b) (Suc q)"
    proof (cases "q < length a")
      case True
      then have "a ! q = INCL2 r x" using q by (simp add: nth_append)
      then have "win a (Suc q)" using a5 True by blast
      then show ?thesis using win_append1 by blast
    next
      case False
      then obtain q0 where q0: "q = length a + q0" using split by blast
      then have "q0 < length b \<and> b ! q0 = INCL2 r x" using q by simp
      then have "win b (Suc q0)" using b5 by blast
      then show ?thesis using q0 win_append2[of a b "Suc q0"] by simp
    qed
  qed
  have c4: "\<forall>q p r x. q < p \<and> (a @ b) ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm ((a @ b) ! m))
      \<and> win (a @ b) p \<longrightarrow> held (a @ b) p \<noteq> None"
  proof (intro allI impI)
    fix q p r x assume h: "q < p \<and> (a @ b) ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm ((a @ b) ! m))
      \<and> win (a @ b) p"
    show "held (a @ b) p \<noteq> None"
    proof (cases "q < length a")
      case True
      \<comment> \<open>a's own invalidation after its INCL2 ends the wait inside a\<close>
      have aq: "a ! q = INCL2 r x" using h True by (simp add: nth_append)
      then have "win a (Suc q)" using a5 True by blast
      then obtain j sc where j: "Suc q \<le> j" "j < length a" "a ! j = INVL1 sc" "\<forall>m. Suc q \<le> m \<and> m < j \<longrightarrow> quiet (a ! m)"
        unfolding win_def by blast
      have pj: "p \<le> j"
      proof (rule ccontr)
        assume "\<not> p \<le> j"
        then have "calm ((a @ b) ! j)" using h j(1) by simp
        then show False using j(2,3) calm_INVL1 by (simp add: nth_append)
      qed
      have "win a p" unfolding win_def using j pj h by (intro exI[of _ j]) auto
      moreover have "\<forall>m. q < m \<and> m < p \<longrightarrow> calm (a ! m)"
      proof (intro allI impI)
        fix m assume m: "q < m \<and> m < p"
        then have "(a @ b) ! m = a ! m" using pj j(2) by (simp add: nth_append)
        then show "calm (a ! m)" using h m by metis
      qed
      ultimately have "held a p \<noteq> None" using a4 h aq by blast
      then show ?thesis using pj j(2) held_append1[of p a b] by simp
    next
      case False
      then obtain q0 where q0: "q = length a + q0" using split by blast
      define p0 where "p0 = p - length a"
      have p0: "p = length a + p0" using h q0 by (simp add: p0_def)
      have "q0 < p0" "b ! q0 = INCL2 r x" using h q0 p0 by simp_all
      moreover have "\<forall>m. q0 < m \<and> m < p0 \<longrightarrow> calm (b ! m)"
      proof (intro allI impI)
        fix m assume "q0 < m \<and> m < p0"
        then show "calm (b ! m)" using h[THEN conjunct2, THEN conjunct2, THEN conjunct1, THEN spec[of _ "length a + m"]] q0 p0
          by simp
      qed
      moreover have "win b p0" using h p0 win_append2 by blast
      ultimately have "held b p0 \<noteq> None" using b4 by blast
      then show ?thesis using p0 held_append2[OF da] by simp
    qed
  qed
  show ?thesis unfolding lk_code_def using c1 c2 c3 c4 c5 by blast
qed

lemma lk_code_concat: "\<forall>c \<in> set cs. lk_code c \<Longrightarrow> lk_code (concat cs)"
  by (induction cs) (auto simp: lk_code_Nil lk_code_append)

text \<open>The scheme's rows for the operations of C all take the locks as
  lk_code says.\<close>
definition lk_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "lk_rows S C \<longleftrightarrow> (\<forall>a \<in> C. \<exists>rw. S a = Some rw \<and> (\<forall>r x. lk_code (rw r x)))"

lemma lk_rows_code:
  assumes "lk_rows S C" "ops_of P \<subseteq> C"
  shows "\<forall>u \<in> src_threads P. lk_code (instrs (compile S P) u)"
proof
  fix u assume u: "u \<in> src_threads P"
  have "lk_code (compile_instr S i)" if i: "i \<in> set (src_code P u)" for i
  proof (cases i)
    case (Op a r x)
    have "a \<in> op_of i" using Op by (simp add: op_of_def)
    then have "a \<in> ops_of P" using u i unfolding ops_of_def by blast
    then obtain rw where "S a = Some rw" "\<forall>r x. lk_code (rw r x)" using assms unfolding lk_rows_def by blast
    then show ?thesis using Op by (simp add: compile_instr_def)
  next
    case (SetReg r v)
    then show ?thesis by (simp add: compile_instr_def lk_code_plain disciplined_def)
  qed
  then show "lk_code (instrs (compile S P) u)" by (simp add: compile_def lk_code_concat)
qed

text \<open>lk_code position by position, for rows written out.\<close>

lemma win_less: "win c p \<Longrightarrow> p < length c"
  unfolding win_def by auto

lemma lk_flushed_upt: "lk_flushed c n \<longleftrightarrow> n \<le> length c \<and> (\<exists>j \<in> set [0..<n]. (\<exists>sc. c ! j = FLUL1 sc) \<and> held c j \<noteq> None
    \<and> (\<forall>m \<in> set [Suc j..<n]. quiet (c ! m) \<and> (\<forall>sc. c ! m \<noteq> UNLKrmw sc)))"
  unfolding lk_flushed_def by (auto simp: Suc_le_eq)

lemma win_upt: "win c n \<longleftrightarrow> (\<exists>j \<in> set [n..<length c]. (\<exists>sc. c ! j = INVL1 sc) \<and> (\<forall>m \<in> set [n..<j]. quiet (c ! m)))"
  unfolding win_def by auto

lemma lk_code_upt: "lk_code c \<longleftrightarrow> disciplined c \<and> (\<forall>q \<in> set [0..<length c].
    (\<forall>r x. c ! q = INCL1 r x \<longrightarrow> held c q \<noteq> None \<and> \<not> lk_flushed c q)
    \<and> (\<forall>r x. c ! q = INCL2 r x \<longrightarrow> lk_flushed c q \<and> win c (Suc q)
       \<and> (\<forall>p \<in> set [Suc q..<length c]. (\<forall>m \<in> set [Suc q..<p]. calm (c ! m)) \<and> win c p \<longrightarrow> held c p \<noteq> None)))"
  (is "_ \<longleftrightarrow> _ \<and> (\<forall>q \<in> _. ?A q \<and> ?B q)")
proof
  assume lc: "lk_code c"
  note c2 = lk_codeD2[OF lc] and c3 = lk_codeD3[OF lc] and c4 = lk_codeD4[OF lc] and c5 = lk_codeD5[OF lc]
  have "?A q \<and> ?B q" if q: "q < length c" for q
  proof (intro conjI allI impI ballI)
    fix r x assume "c ! q = INCL1 r x"
    then show "held c q \<noteq> None" "\<not> lk_flushed c q" using c2 q by blast+
  next
    fix r x assume i: "c ! q = INCL2 r x"
    show "lk_flushed c q" using c3 q i by blast
    show "win c (Suc q)" using c5 q i by blast
  next
    fix r x p assume i: "c ! q = INCL2 r x" and p: "p \<in> set [Suc q..<length c]"
      and h: "(\<forall>m \<in> set [Suc q..<p]. calm (c ! m)) \<and> win c p"
    have "\<forall>m. q < m \<and> m < p \<longrightarrow> calm (c ! m)" using h by auto
    moreover have "q < p" using p by simp
    ultimately show "held c p \<noteq> None" using c4 i h by blast
  qed
  then show "disciplined c \<and> (\<forall>q \<in> set [0..<length c]. ?A q \<and> ?B q)" using lk_codeD1[OF lc] by simp
next
  assume r: "disciplined c \<and> (\<forall>q \<in> set [0..<length c]. ?A q \<and> ?B q)"
  have ab: "?A q \<and> ?B q" if "q < length c" for q using r that by simp
  have c2: "\<forall>p r x. p < length c \<and> c ! p = INCL1 r x \<longrightarrow> held c p \<noteq> None \<and> \<not> lk_flushed c p"
    using ab by blast
  have c3: "\<forall>p r x. p < length c \<and> c ! p = INCL2 r x \<longrightarrow> lk_flushed c p"
    using ab by blast
  have c5: "\<forall>q r x. q < length c \<and> c ! q = INCL2 r x \<longrightarrow> win c (Suc q)"
    using ab by blast
  have c4: "\<forall>q p r x. q < p \<and> c ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (c ! m)) \<and> win c p
      \<longrightarrow> held c p \<noteq> None"
  proof (intro allI impI)
    fix q p r x assume h: "q < p \<and> c ! q = INCL2 r x \<and> (\<forall>m. q < m \<and> m < p \<longrightarrow> calm (c ! m)) \<and> win c p"
    have pl: "p < length c" using h win_less by blast
    have ql: "q < length c" using h pl by simp
    have "?B q" using ab[OF ql] by blast
    then have w: "\<forall>p \<in> set [Suc q..<length c]. (\<forall>m \<in> set [Suc q..<p]. calm (c ! m)) \<and> win c p \<longrightarrow> held c p \<noteq> None"
      using h by blast
    have "p \<in> set [Suc q..<length c]" using h pl by simp
    moreover have "\<forall>m \<in> set [Suc q..<p]. calm (c ! m)" using h by auto
    ultimately show "held c p \<noteq> None" using w h by blast
  qed
  show "lk_code c" unfolding lk_code_def using r c2 c3 c4 c5 by blast
qed

text \<open>For rows written out: lk_code with every quantifier bounded by a
  list of positions, for simp to decide (without set_upt).\<close>
lemmas lk_code_simps = lk_code_upt lk_flushed_upt win_upt held_def disciplined_def upt_conv_Cons
  conj_disj_distribR ex_disj_distrib

text \<open>The same theorem for a scheme whose rows take the locks as lk_code says.\<close>
corollary machine_outcomes_rmw_atomic_rows:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "acq_rows S A B" "rel_rows S A B"
    "prom_rows S A B" "rl_rows S A B" "rr_rows S A B" "mem_rows S (A \<union> B)" "acq2_rows S (A \<union> B)" "lk_rows S (A \<union> B)" "well_placed L P" "dev_sys L P" "\<not> na_rmw P"
    "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" "load_promotion L P"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> {ob. \<exists>rfw cos v. cand_ok P rfw cos v \<and> is_outcome P cos v ob
    \<and> (\<forall>t k. acc P t k True \<longrightarrow> rmw_atomic P rfw cos t k)}"
  using machine_outcomes_rmw_atomic[OF assms(1-11,13-17) lk_rows_code[OF assms(12,3)]] .

end
