(* hrf base theory: the execution a machine run exhibits (step (2) of
   docs/isabelle.md's plan for [RSP15]'s soundness theorem). Every machine
   run of a program compiled by rows whose one data instruction is an L1
   access or an increment at the L2 (every row of rsp-new) carries a ghost:
   for each cache line and memory cell, the write whose value it holds; for
   each write, when it was performed, when it reached its device's L2 and
   when it reached memory. A load reads from the write its line holds;
   coherence orders the writes of a location by when they reached memory,
   then the L2, then by when they were performed. Every final state's
   registers and memory are then the outcome of a candidate execution of
   the source program (Hrf_Source), for every program of any length and
   thread count, on every layout, under both write-back policies, racy or
   not. Written by hand, every proof complete. *)
theory Hrf_Exhibit
  imports Hrf_Source
begin

section \<open>The ghost of a run\<close>

text \<open>gv: the value of each performed event; grf: the write each performed
  read reads from; gt: when a write was performed; ga2, ga3: when it
  reached its device's L2 and memory (None: not yet); h1, h2, hm: the write
  whose value an L1 line, an L2 line and a memory cell hold; clk: the
  ghost clock, past every time given so far.\<close>
record ghost =
  gv :: "sev \<Rightarrow> int"
  grf :: "sev \<Rightarrow> sev"
  gt :: "sev \<Rightarrow> nat"
  ga2 :: "sev \<Rightarrow> nat option"
  ga3 :: "sev \<Rightarrow> nat option"
  h1 :: "wid \<Rightarrow> addr \<Rightarrow> sev"
  h2 :: "did \<Rightarrow> addr \<Rightarrow> sev"
  hm :: "addr \<Rightarrow> sev"
  clk :: nat

text \<open>The source instructions thread t has performed: the visible
  instructions before its pc (each compiled source instruction has one).\<close>
definition kd :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> tid \<Rightarrow> nat" where
  "kd S P s t = length (filter visible (take (pc s t) (instrs (compile S P) t)))"

fun done_ev :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> sev \<Rightarrow> bool" where
  "done_ev S P s (Init x) = True"
| "done_ev S P s (Acc t k p) = (k < kd S P s t)"

text \<open>The writes of x so far: its initial write and every performed write of it.\<close>
definition wx :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> addr \<Rightarrow> sev \<Rightarrow> bool" where
  "wx S P s x e \<longleftrightarrow> e = Init x \<or> (is_wr P e \<and> done_ev S P s e \<and> sloc P e = Some x)"

text \<open>The work-group and device a thread event's write starts from.\<close>
fun ewg :: "layout \<Rightarrow> sev \<Rightarrow> wid option" where
  "ewg L (Init x) = None"
| "ewg L (Acc t k p) = Some (wg_of L t)"

text \<open>The writes of x that work-group w has not yet written back to its
  L2, and those that device d's L2 has not yet written back to memory.\<close>
definition pend1 :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> sev set" where
  "pend1 L S P s g w x = {e. wx S P s x e \<and> ewg L e = Some w \<and> ga2 g e = None}"

definition pend2 :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> did \<Rightarrow> addr \<Rightarrow> sev set" where
  "pend2 L S P s g d x = {e. wx S P s x e \<and> map_option (dev_of L) (ewg L e) = Some d
     \<and> ga2 g e \<noteq> None \<and> ga3 g e = None}"

text \<open>Coherence keys: when a write reached memory, then its L2, then when it
  was performed, compared lexicographically.\<close>
definition klt :: "nat \<times> nat \<times> nat \<Rightarrow> nat \<times> nat \<times> nat \<Rightarrow> bool" where
  "klt a b \<longleftrightarrow> fst a < fst b \<or> (fst a = fst b \<and> (fst (snd a) < fst (snd b)
     \<or> (fst (snd a) = fst (snd b) \<and> snd (snd a) < snd (snd b))))"

definition key :: "ghost \<Rightarrow> sev \<Rightarrow> nat \<times> nat \<times> nat" where
  "key g e = (the (ga3 g e), the (ga2 g e), gt g e)"

lemma klt_trans: "klt a b \<Longrightarrow> klt b c \<Longrightarrow> klt a c"
  by (auto simp: klt_def)

lemma klt_irrefl: "\<not> klt a a"
  by (simp add: klt_def)

lemma klt_asym: "klt a b \<Longrightarrow> \<not> klt b a"
  by (auto simp: klt_def)

lemma klt_total: "a \<noteq> b \<Longrightarrow> klt a b \<or> klt b a"
  by (cases a; cases b) (auto simp: klt_def)

section \<open>The invariant\<close>

text \<open>Each present line and each memory cell holds the value of a write of
  its location; memory holds the coherence-last of the writes that reached
  it.\<close>
definition lines_inv :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "lines_inv S P s g \<longleftrightarrow>
     (\<forall>w x. l1 s w x \<noteq> None \<longrightarrow> val_of (l1 s w x) = gv g (h1 g w x) \<and> wx S P s x (h1 g w x))
   \<and> (\<forall>d x. l2 s d x \<noteq> None \<longrightarrow> val_of (l2 s d x) = gv g (h2 g d x) \<and> wx S P s x (h2 g d x))
   \<and> (\<forall>x. mem s x = gv g (hm g x) \<and> wx S P s x (hm g x) \<and> ga3 g (hm g x) \<noteq> None
        \<and> (\<forall>e. wx S P s x e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g x \<or> klt (key g e) (key g (hm g x))))"

text \<open>A line is dirty exactly when writes wait in it; a dirty L1 line holds
  the newest of them, a dirty L2 line the last to arrive ([RSP15] sec. 5:
  a dirty line is newer than the copies below it).\<close>
definition dirty_inv :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "dirty_inv L S P s g \<longleftrightarrow>
     (\<forall>w x. (dirty (l1 s w x) \<longleftrightarrow> pend1 L S P s g w x \<noteq> {})
        \<and> (dirty (l1 s w x) \<longrightarrow> h1 g w x \<in> pend1 L S P s g w x
             \<and> (\<forall>e \<in> pend1 L S P s g w x. gt g e \<le> gt g (h1 g w x))))
   \<and> (\<forall>d x. (dirty (l2 s d x) \<longleftrightarrow> pend2 L S P s g d x \<noteq> {})
        \<and> (dirty (l2 s d x) \<longrightarrow> h2 g d x \<in> pend2 L S P s g d x
             \<and> (\<forall>e \<in> pend2 L S P s g d x. e = h2 g d x
                  \<or> the (ga2 g e) < the (ga2 g (h2 g d x))
                  \<or> (the (ga2 g e) = the (ga2 g (h2 g d x)) \<and> gt g e < gt g (h2 g d x)))))"

text \<open>Times: the initial writes at 0, every performed write after, each at
  its own time, and every time before the clock; a write reaches memory
  only after its L2.\<close>
definition time_inv :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "time_inv S P s g \<longleftrightarrow>
     (\<forall>x. gt g (Init x) = 0 \<and> ga2 g (Init x) = Some 0 \<and> ga3 g (Init x) = Some 0)
   \<and> (\<forall>e. is_wr P e \<and> done_ev S P s e \<and> (\<forall>x. e \<noteq> Init x) \<longrightarrow>
        0 < gt g e \<and> gt g e < clk g \<and> (\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g)
      \<and> (\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None))
   \<and> (\<forall>e e'. is_wr P e \<and> done_ev S P s e \<and> is_wr P e' \<and> done_ev S P s e' \<and> gt g e = gt g e'
        \<and> (\<forall>x. e \<noteq> Init x) \<and> (\<forall>x. e' \<noteq> Init x) \<longrightarrow> e = e')"

text \<open>The performed events' values, as a candidate's (Hrf_Source's
  values_ok, so far), and each thread's registers: its code run on the
  values its reads returned.\<close>
definition ev_inv :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "ev_inv S P s g \<longleftrightarrow>
     (\<forall>x. gv g (Init x) = src_init P x)
   \<and> (\<forall>r. is_rd P r \<and> done_ev S P s r \<longrightarrow> gv g r = gv g (grf g r) \<and> is_wr P (grf g r)
        \<and> sloc P (grf g r) = sloc P r \<and> done_ev S P s (grf g r))
   \<and> (\<forall>t k r x sc rm. acc P t k False \<longrightarrow> k < kd S P s t \<longrightarrow> ins P t k = Op (Store sc rm) r x
        \<longrightarrow> gv g (Acc t k False) = tregs (src_code P t) (reads_val (gv g) t) k r)
   \<and> (\<forall>t k. acc P t k True \<longrightarrow> k < kd S P s t \<longrightarrow> gv g (Acc t k True) = gv g (Acc t k False) + 1)
   \<and> (\<forall>t \<in> src_threads P. regs s t = tregs (src_code P t) (reads_val (gv g) t) (kd S P s t))
   \<and> (\<forall>t. t \<notin> src_threads P \<longrightarrow> regs s t = (\<lambda>_. 0) \<and> pc s t = 0)"

definition ginv :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "ginv L S P s g \<longleftrightarrow> lines_inv S P s g \<and> dirty_inv L S P s g \<and> time_inv S P s g \<and> ev_inv S P s g"

definition ghost0 :: "src_program \<Rightarrow> ghost" where
  "ghost0 P = \<lparr>gv = (\<lambda>e. case e of Init x \<Rightarrow> src_init P x | Acc t k p \<Rightarrow> 0), grf = (\<lambda>e. e),
     gt = (\<lambda>_. 0), ga2 = (\<lambda>e. case e of Init x \<Rightarrow> Some 0 | Acc t k p \<Rightarrow> None),
     ga3 = (\<lambda>e. case e of Init x \<Rightarrow> Some 0 | Acc t k p \<Rightarrow> None),
     h1 = (\<lambda>w x. Init x), h2 = (\<lambda>d x. Init x), hm = Init, clk = 1\<rparr>"

lemma initial_fields: "l1 (initial m) w x = None" "l2 (initial m) d x = None" "mem (initial m) = m"
  "regs (initial m) t = (\<lambda>_. 0)" "pc (initial m) t = 0"
  by (simp_all add: initial_def)

lemma kd_initial [simp]: "kd S P (initial m) t = 0"
  by (simp add: kd_def initial_def)

lemma wx_initial: "wx S P (initial m) x e \<longleftrightarrow> e = Init x"
  by (cases e) (auto simp: wx_def)

lemma ginv_initial: "ginv L S P (initial (src_init P)) (ghost0 P)"
proof -
  define s0 where "s0 = initial (src_init P)"
  have f: "l1 s0 w x = None" "l2 s0 d x = None" "mem s0 = src_init P" "regs s0 t = (\<lambda>_. 0)" "kd S P s0 t = 0"
      "pc s0 t = 0" for w d x t
    by (simp_all add: s0_def initial_fields)
  have w: "wx S P s0 x e \<longleftrightarrow> e = Init x" for x e
    by (simp add: s0_def wx_initial)
  have p1: "pend1 L S P s0 (ghost0 P) w x = {}" for w x
    by (auto simp: pend1_def w)
  have p2: "pend2 L S P s0 (ghost0 P) d x = {}" for d x
    by (auto simp: pend2_def w)
  have d: "\<not> dirty (l1 s0 w x)" "\<not> dirty (l2 s0 d x)" for w d x
    by (simp_all add: f dirty_def)
  have e: "\<not> (is_wr P e \<and> done_ev S P s0 e \<and> (\<forall>x. e \<noteq> Init x))" for e
    by (cases e) (auto simp: f)
  have r: "\<not> (is_rd P e \<and> done_ev S P s0 e)" for e
    by (cases e) (auto simp: f)
  have "lines_inv S P s0 (ghost0 P)"
    unfolding lines_inv_def w by (simp add: f ghost0_def)
  moreover have "dirty_inv L S P s0 (ghost0 P)"
    unfolding dirty_inv_def p1 p2 using d by simp
  moreover have "time_inv S P s0 (ghost0 P)"
    unfolding time_inv_def using e by (simp add: ghost0_def) (metis)
  moreover have "ev_inv S P s0 (ghost0 P)"
    unfolding ev_inv_def using r by (simp add: f ghost0_def) blast
  ultimately show ?thesis
    by (simp add: ginv_def s0_def)
qed


section \<open>Basic facts\<close>

lemma wx_Init: "wx S P s x (Init y) \<longleftrightarrow> y = x"
  by (auto simp: wx_def)

lemma wr_loc: "is_wr P e \<Longrightarrow> \<exists>y. sloc P e = Some y"
proof (cases e)
  case (Acc t k p)
  assume "is_wr P e"
  then have "wr (ins P t k) p" using Acc by simp
  then show ?thesis using wr_addr Acc by simp
qed simp

lemma wx_loc: "wx S P s x e \<Longrightarrow> sloc P e = Some x"
  by (cases e) (auto simp: wx_def)

lemma wx_perf: "wx S P s x e \<Longrightarrow> (\<forall>y. e \<noteq> Init y) \<Longrightarrow> is_wr P e \<and> done_ev S P s e"
  by (cases e) (auto simp: wx_def)

lemma pend1_D: "e \<in> pend1 L S P s g w x \<Longrightarrow>
    wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> wg_of L t = w) \<and> ga2 g e = None"
  by (cases e) (auto simp: pend1_def)

lemma pend2_D: "e \<in> pend2 L S P s g d x \<Longrightarrow>
    wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> dev_of L (wg_of L t) = d) \<and> ga2 g e \<noteq> None \<and> ga3 g e = None"
  by (cases e) (auto simp: pend2_def)

lemma kd_same: "pc s' = pc s \<Longrightarrow> kd S P s' = kd S P s"
  by (simp add: kd_def[abs_def])

lemma done_same: "pc s' = pc s \<Longrightarrow> done_ev S P s' = done_ev S P s"
proof -
  assume a: "pc s' = pc s"
  have "done_ev S P s' e = done_ev S P s e" for e
    using kd_same[OF a] by (cases e) simp_all
  then show ?thesis by blast
qed

lemma wx_same: "pc s' = pc s \<Longrightarrow> wx S P s' = wx S P s"
proof -
  assume a: "pc s' = pc s"
  show ?thesis unfolding wx_def[abs_def] done_same[OF a] ..
qed

lemma pend_same: "pc s' = pc s \<Longrightarrow> pend1 L S P s' = pend1 L S P s \<and> pend2 L S P s' = pend2 L S P s"
proof -
  assume a: "pc s' = pc s"
  show ?thesis unfolding pend1_def[abs_def] pend2_def[abs_def] wx_same[OF a] by simp
qed

lemma ginv_cong:
  assumes "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s" "regs s' = regs s" "pc s' = pc s"
  shows "ginv L S P s' g = ginv L S P s g"
proof -
  have a: "wx S P s' = wx S P s" "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
      "done_ev S P s' = done_ev S P s" "kd S P s' = kd S P s"
    using wx_same[OF assms(5)] pend_same[OF assms(5)] done_same[OF assms(5)] kd_same[OF assms(5)] by simp_all
  show ?thesis
    unfolding ginv_def lines_inv_def dirty_inv_def time_inv_def ev_inv_def a assms(1-5) by (rule refl)
qed

lemma time_perf: "time_inv S P s g \<Longrightarrow> wx S P s x e \<Longrightarrow> (\<forall>y. e \<noteq> Init y) \<Longrightarrow>
    0 < gt g e \<and> gt g e < clk g \<and> (\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g)
      \<and> (\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
proof -
  assume a: "time_inv S P s g" "wx S P s x e" "\<forall>y. e \<noteq> Init y"
  have b: "is_wr P e \<and> done_ev S P s e \<and> (\<forall>y. e \<noteq> Init y)" using wx_perf[OF a(2,3)] a(3) by simp
  have "\<forall>e. is_wr P e \<and> done_ev S P s e \<and> (\<forall>x. e \<noteq> Init x) \<longrightarrow>
        0 < gt g e \<and> gt g e < clk g \<and> (\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g)
      \<and> (\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
    using a(1) unfolding time_inv_def by (rule conjunct1[OF conjunct2])
  from this[rule_format, OF b] show ?thesis .
qed

lemma time_inj: "time_inv S P s g \<Longrightarrow> wx S P s x e \<Longrightarrow> wx S P s y e' \<Longrightarrow> (\<forall>z. e \<noteq> Init z) \<Longrightarrow> (\<forall>z. e' \<noteq> Init z)
    \<Longrightarrow> gt g e = gt g e' \<Longrightarrow> e = e'"
proof -
  assume a: "time_inv S P s g" "wx S P s x e" "wx S P s y e'" "\<forall>z. e \<noteq> Init z" "\<forall>z. e' \<noteq> Init z" "gt g e = gt g e'"
  have b: "is_wr P e \<and> done_ev S P s e \<and> is_wr P e' \<and> done_ev S P s e' \<and> gt g e = gt g e'
        \<and> (\<forall>x. e \<noteq> Init x) \<and> (\<forall>x. e' \<noteq> Init x)"
    using wx_perf[OF a(2,4)] wx_perf[OF a(3,5)] a(4-6) by simp
  have "\<forall>e e'. is_wr P e \<and> done_ev S P s e \<and> is_wr P e' \<and> done_ev S P s e' \<and> gt g e = gt g e'
        \<and> (\<forall>x. e \<noteq> Init x) \<and> (\<forall>x. e' \<noteq> Init x) \<longrightarrow> e = e'"
    using a(1) unfolding time_inv_def by (rule conjunct2[OF conjunct2])
  from this[rule_format, OF b] show ?thesis .
qed

subsection \<open>The invariant's parts, one line or cell at a time\<close>

definition dirty1 :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> bool" where
  "dirty1 L S P s g w x \<longleftrightarrow> (dirty (l1 s w x) \<longleftrightarrow> pend1 L S P s g w x \<noteq> {})
        \<and> (dirty (l1 s w x) \<longrightarrow> h1 g w x \<in> pend1 L S P s g w x
             \<and> (\<forall>e \<in> pend1 L S P s g w x. gt g e \<le> gt g (h1 g w x)))"

definition dirty2 :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> did \<Rightarrow> addr \<Rightarrow> bool" where
  "dirty2 L S P s g d x \<longleftrightarrow> (dirty (l2 s d x) \<longleftrightarrow> pend2 L S P s g d x \<noteq> {})
        \<and> (dirty (l2 s d x) \<longrightarrow> h2 g d x \<in> pend2 L S P s g d x
             \<and> (\<forall>e \<in> pend2 L S P s g d x. e = h2 g d x
                  \<or> the (ga2 g e) < the (ga2 g (h2 g d x))
                  \<or> (the (ga2 g e) = the (ga2 g (h2 g d x)) \<and> gt g e < gt g (h2 g d x))))"

lemma dirty_inv_iff: "dirty_inv L S P s g \<longleftrightarrow> (\<forall>w x. dirty1 L S P s g w x) \<and> (\<forall>d x. dirty2 L S P s g d x)"
  by (simp add: dirty_inv_def dirty1_def dirty2_def)

definition line1 :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> bool" where
  "line1 S P s g w x \<longleftrightarrow> (l1 s w x \<noteq> None \<longrightarrow> val_of (l1 s w x) = gv g (h1 g w x) \<and> wx S P s x (h1 g w x))"

definition line2 :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> did \<Rightarrow> addr \<Rightarrow> bool" where
  "line2 S P s g d x \<longleftrightarrow> (l2 s d x \<noteq> None \<longrightarrow> val_of (l2 s d x) = gv g (h2 g d x) \<and> wx S P s x (h2 g d x))"

definition cell :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> addr \<Rightarrow> bool" where
  "cell S P s g x \<longleftrightarrow> mem s x = gv g (hm g x) \<and> wx S P s x (hm g x) \<and> ga3 g (hm g x) \<noteq> None
        \<and> (\<forall>e. wx S P s x e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g x \<or> klt (key g e) (key g (hm g x)))"

lemma lines_inv_iff: "lines_inv S P s g \<longleftrightarrow> (\<forall>w x. line1 S P s g w x) \<and> (\<forall>d x. line2 S P s g d x) \<and> (\<forall>x. cell S P s g x)"
  unfolding lines_inv_def line1_def line2_def cell_def by (rule refl)

section \<open>Environment steps keep the invariant\<close>

definition wb1g :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> ghost" where
  "wb1g L S P s g w x = g\<lparr>ga2 := (\<lambda>e. if e \<in> pend1 L S P s g w x then Some (clk g) else ga2 g e),
     h2 := (h2 g)(dev_of L w := (h2 g (dev_of L w))(x := h1 g w x)), clk := Suc (clk g)\<rparr>"

lemma wb1_inv:
  assumes inv: "ginv L S P s g" and dty: "dirty (l1 s w x)"
  shows "ginv L S P (write_back_l1 L w x s) (wb1g L S P s g w x)"
proof -
  define d where "d = dev_of L w"
  define g' where "g' = wb1g L S P s g w x"
  obtain v f where l: "l1 s w x = Some (v, Dirty, f)"
    using dty by (auto simp: dirty_iff)
  define s' where "s' = write_back_l1 L w x s"
  have s': "l1 s' = (l1 s)(w := (l1 s w)(x := Some (v, Clean, f)))"
      "l2 s' = (l2 s)(d := (l2 s d)(x := Some (v, Dirty, Valid)))"
      "mem s' = mem s" "regs s' = regs s" "pc s' = pc s"
    using l by (simp_all add: s'_def write_back_l1_def enq_l2_def set_l1_def set_l2_def d_def)
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have wxs: "wx S P s' = wx S P s" using wx_same[OF s'(5)] .
  have pends: "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
    using pend_same[OF s'(5)] by simp_all
  have dones: "done_ev S P s' = done_ev S P s" "kd S P s' = kd S P s"
    using done_same[OF s'(5)] kd_same[OF s'(5)] by simp_all
  define Q where "Q = pend1 L S P s g w x"
  have hQ: "h1 g w x \<in> Q" and Qmax: "\<forall>e \<in> Q. gt g e \<le> gt g (h1 g w x)"
    using di dty by (simp_all add: dirty_inv_def Q_def)
  have QD: "e \<in> Q \<Longrightarrow> wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> wg_of L t = w) \<and> ga2 g e = None \<and> ga3 g e = None" for e
  proof -
    assume "e \<in> Q"
    then have a: "wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> wg_of L t = w) \<and> ga2 g e = None"
      using pend1_D by (simp add: Q_def)
    then have "ga3 g e = None" using time_perf[OF ti, of x e] by auto
    then show ?thesis using a by simp
  qed
  have g'f: "gv g' = gv g" "grf g' = grf g" "gt g' = gt g" "ga3 g' = ga3 g" "h1 g' = h1 g" "hm g' = hm g"
      "clk g' = Suc (clk g)" "ga2 g' = (\<lambda>e. if e \<in> Q then Some (clk g) else ga2 g e)"
      "h2 g' = (h2 g)(d := (h2 g d)(x := h1 g w x))"
    by (simp_all add: g'_def wb1g_def Q_def d_def)
  have key_same: "ga3 g e \<noteq> None \<Longrightarrow> key g' e = key g e" for e
    using QD[of e] by (auto simp: key_def g'f)
  \<comment> \<open>the pending sets after the write-back\<close>
  have p1m: "pend1 L S P s' g' w' y = pend1 L S P s g w' y - Q" for w' y
    by (auto simp: pend1_def pends wxs g'f)
  have p1': "pend1 L S P s' g' w' y = (if w' = w \<and> y = x then {} else pend1 L S P s g w' y)" for w' y
  proof (cases "w' = w \<and> y = x")
    case True
    then show ?thesis using p1m by (simp add: Q_def)
  next
    case False
    have "w' = w \<and> y = x" if "e \<in> Q" "e \<in> pend1 L S P s g w' y" for e
    proof -
      have a: "wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> wg_of L t = w)" using QD that(1) by blast
      have b: "wx S P s y e \<and> (\<exists>t k p. e = Acc t k p \<and> wg_of L t = w')" using pend1_D that(2) by blast
      have "sloc P e = Some x" "sloc P e = Some y" using a b wx_loc by blast+
      moreover have "w' = w" using a b by auto
      ultimately show ?thesis by simp
    qed
    then show ?thesis using p1m False by auto
  qed
  have QnP: "e \<in> pend2 L S P s g d' y \<Longrightarrow> e \<notin> Q" for e d' y
    using QD pend2_D by blast
  have p2m: "pend2 L S P s' g' d' y = pend2 L S P s g d' y \<union> {e \<in> Q. map_option (dev_of L) (ewg L e) = Some d' \<and> wx S P s y e}" for d' y
  proof (intro set_eqI iffI)
    fix e assume "e \<in> pend2 L S P s' g' d' y"
    then show "e \<in> pend2 L S P s g d' y \<union> {e \<in> Q. map_option (dev_of L) (ewg L e) = Some d' \<and> wx S P s y e}"
      by (cases "e \<in> Q") (simp_all add: pend2_def wxs g'f)
  next
    fix e assume "e \<in> pend2 L S P s g d' y \<union> {e \<in> Q. map_option (dev_of L) (ewg L e) = Some d' \<and> wx S P s y e}"
    then show "e \<in> pend2 L S P s' g' d' y"
    proof
      assume "e \<in> pend2 L S P s g d' y"
      then show ?thesis using QnP[of e d' y] by (simp add: pend2_def wxs g'f)
    next
      assume "e \<in> {e \<in> Q. map_option (dev_of L) (ewg L e) = Some d' \<and> wx S P s y e}"
      then show ?thesis using QD[of e] by (simp add: pend2_def wxs g'f)
    qed
  qed
  have p2': "pend2 L S P s' g' d' y = (if d' = d \<and> y = x then pend2 L S P s g d' y \<union> Q else pend2 L S P s g d' y)" for d' y
  proof (cases "d' = d \<and> y = x")
    case True
    have "map_option (dev_of L) (ewg L e) = Some d \<and> wx S P s x e" if eQ: "e \<in> Q" for e
    proof -
      obtain t k p where "e = Acc t k p" "wg_of L t = w" "wx S P s x e" using QD[OF eQ] by blast
      then show ?thesis by (simp add: d_def)
    qed
    then have "{e \<in> Q. map_option (dev_of L) (ewg L e) = Some d' \<and> wx S P s y e} = Q"
      using True by blast
    then have "pend2 L S P s' g' d' y = pend2 L S P s g d' y \<union> Q"
      unfolding p2m by (simp only:)
    then show ?thesis using True by simp
  next
    case False
    have "{e \<in> Q. map_option (dev_of L) (ewg L e) = Some d' \<and> wx S P s y e} = {}"
    proof (rule equals0I)
      fix e assume e: "e \<in> {e \<in> Q. map_option (dev_of L) (ewg L e) = Some d' \<and> wx S P s y e}"
      then have a: "wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> wg_of L t = w)" using QD by blast
      have "sloc P e = Some x" "sloc P e = Some y" using a e wx_loc by blast+
      moreover obtain t k p where "e = Acc t k p" "wg_of L t = w" using a by blast
      then have "d' = d" using e by (simp add: d_def)
      ultimately show False using False by simp
    qed
    then have "pend2 L S P s' g' d' y = pend2 L S P s g d' y"
      unfolding p2m by (simp only: Un_empty_right)
    then show ?thesis unfolding if_not_P[OF False] .
  qed
  have "line1 S P s g w x" using li by (simp add: lines_inv_iff)
  then have hlines: "val_of (l1 s w x) = gv g (h1 g w x)" "wx S P s x (h1 g w x)"
    using l by (simp_all add: line1_def)
  have "line1 S P s' g' w' y" for w' y
    using li hlines l unfolding lines_inv_iff line1_def
    by (cases "w' = w \<and> y = x") (auto simp: s'(1) g'f wxs)
  moreover have "line2 S P s' g' d' y" for d' y
  proof (cases "d' = d \<and> y = x")
    case True
    then show ?thesis using hlines l by (auto simp: line2_def s'(2) g'f wxs)
  next
    case False
    then have "l2 s' d' y = l2 s d' y" "h2 g' d' y = h2 g d' y"
      by (auto simp: s'(2) g'f)
    then show ?thesis using li by (simp add: lines_inv_iff line2_def g'f wxs)
  qed
  moreover have "cell S P s' g' y" for y
  proof -
    have c: "cell S P s g y" using li by (simp add: lines_inv_iff)
    have h3: "ga3 g (hm g y) \<noteq> None" using c by (simp add: cell_def)
    have "\<forall>e. wx S P s y e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
    proof (intro allI impI)
      fix e assume e: "wx S P s y e \<and> ga3 g e \<noteq> None"
      have "e = hm g y \<or> klt (key g e) (key g (hm g y))" using c e unfolding cell_def by blast
      then show "e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
        using key_same[of e] key_same[of "hm g y"] e h3 by simp
    qed
    then show ?thesis using c unfolding cell_def s'(3) g'f wxs by simp
  qed
  ultimately have "lines_inv S P s' g'"
    by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    show "dirty1 L S P s' g' w' y"
    proof (cases "w' = w \<and> y = x")
      case True
      then show ?thesis by (simp add: dirty1_def p1' s'(1) dirty_def)
    next
      case False
      have e: "l1 s' w' y = l1 s w' y" "pend1 L S P s' g' w' y = pend1 L S P s g w' y" "h1 g' w' y = h1 g w' y"
        using False by (auto simp: s'(1) p1' g'f)
      have "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
      then show ?thesis unfolding dirty1_def e g'f(3) .
    qed
  next
    fix d' y
    show "dirty2 L S P s' g' d' y"
    proof (cases "d' = d \<and> y = x")
      case True
      have h: "h2 g' d' y = h1 g w x" "ga2 g' (h1 g w x) = Some (clk g)"
        using True hQ by (simp_all add: g'f)
      have ord: "e = h1 g w x \<or> the (ga2 g' e) < the (ga2 g' (h1 g w x)) \<or> (the (ga2 g' e) = the (ga2 g' (h1 g w x)) \<and> gt g' e < gt g' (h1 g w x))"
        if e: "e \<in> pend2 L S P s g d x \<union> Q" for e
      proof (cases "e \<in> Q")
        case True
        have le: "gt g e \<le> gt g (h1 g w x)" using Qmax True by blast
        have eq: "gt g e = gt g (h1 g w x) \<Longrightarrow> e = h1 g w x"
        proof -
          assume a: "gt g e = gt g (h1 g w x)"
          obtain t k p where e1: "e = Acc t k p" "wx S P s x e" using QD[OF True] by blast
          obtain t' k' p' where e2: "h1 g w x = Acc t' k' p'" "wx S P s x (h1 g w x)" using QD[OF hQ] by blast
          have n: "\<forall>z. e \<noteq> Init z" "\<forall>z. h1 g w x \<noteq> Init z" using e1(1) e2(1) by simp_all
          show ?thesis by (rule time_inj[OF ti e1(2) e2(2) n a])
        qed
        have "e = h1 g w x \<or> gt g e < gt g (h1 g w x)"
        proof (cases "gt g e = gt g (h1 g w x)")
          case True
          then show ?thesis using eq by blast
        next
          case False
          then show ?thesis using le by simp
        qed
        moreover have "ga2 g' e = Some (clk g)" "ga2 g' (h1 g w x) = Some (clk g)"
          using True hQ by (simp_all add: g'f)
        ultimately show ?thesis by (simp add: g'f)
      next
        case False
        then have "e \<in> pend2 L S P s g d x" using e by blast
        then obtain n where "ga2 g e = Some n" "n < clk g"
          using pend2_D[of e] time_perf[OF ti, of x e] by fastforce
        then show ?thesis using False hQ by (simp add: g'f)
      qed
      have p: "pend2 L S P s' g' d' y = pend2 L S P s g d x \<union> Q" using True p2' by simp
      have l: "l2 s' d' y = Some (v, Dirty, Valid)" using True s'(2) by simp
      have ne: "pend2 L S P s g d x \<union> Q \<noteq> {}" using hQ by blast
      show ?thesis unfolding dirty2_def p l h(1)
        using hQ ord ne by (simp add: dirty_def)
    next
      case False
      have e: "l2 s' d' y = l2 s d' y" "pend2 L S P s' g' d' y = pend2 L S P s g d' y" "h2 g' d' y = h2 g d' y"
        using False by (auto simp: s'(2) p2' g'f)
      have g2: "e \<in> pend2 L S P s g d' y \<Longrightarrow> ga2 g' e = ga2 g e" for e
        using QnP[of e d' y] by (simp add: g'f)
      have "dirty2 L S P s g d' y" using di by (simp add: dirty_inv_iff)
      then show ?thesis unfolding dirty2_def e g'f(3)
        using g2 by (simp add: dirty2_def)
    qed
  qed
  moreover have "time_inv S P s' g'"
  proof -
    have "e \<in> Q \<Longrightarrow> (\<forall>x. e \<noteq> Init x)" for e using QD by blast
    then have t1: "\<forall>x. gt g' (Init x) = 0 \<and> ga2 g' (Init x) = Some 0 \<and> ga3 g' (Init x) = Some 0"
      using ti unfolding time_inv_def g'f by auto
    have t2: "0 < gt g' e \<and> gt g' e < clk g' \<and> (\<forall>n. ga2 g' e = Some n \<longrightarrow> n < clk g')
      \<and> (\<forall>n. ga3 g' e = Some n \<longrightarrow> n < clk g') \<and> (ga2 g' e = None \<longrightarrow> ga3 g' e = None)"
      if e: "is_wr P e" "done_ev S P s' e" "\<forall>x. e \<noteq> Init x" for e
    proof -
      obtain y where y: "sloc P e = Some y"
        using wr_loc[OF e(1)] by blast
      have wxe: "wx S P s y e" using e y by (simp add: wx_def dones)
      note tp = time_perf[OF ti wxe e(3)]
      show ?thesis
        using tp by (auto simp: g'f)
    qed
    have t3: "e = e'" if tt: "is_wr P e" "done_ev S P s' e" "is_wr P e'" "done_ev S P s' e'" "gt g' e = gt g' e'"
        "\<forall>x. e \<noteq> Init x" "\<forall>x. e' \<noteq> Init x" for e e'
    proof -
      obtain y where y: "sloc P e = Some y" using wr_loc[OF tt(1)] by blast
      obtain y' where y': "sloc P e' = Some y'" using wr_loc[OF tt(3)] by blast
      show ?thesis
        using time_inj[OF ti, of y e y' e'] tt y y' by (simp add: wx_def dones g'f)
    qed
    show ?thesis unfolding time_inv_def using t1 t2 t3 by blast
  qed
  moreover have "ev_inv S P s' g'"
    using ei unfolding ev_inv_def dones g'f s'(4) s'(5) .
  ultimately show ?thesis
    by (simp add: ginv_def s'_def g'_def)
qed


definition wb2g :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> did \<Rightarrow> addr \<Rightarrow> ghost" where
  "wb2g L S P s g d x = g\<lparr>ga3 := (\<lambda>e. if e \<in> pend2 L S P s g d x then Some (clk g) else ga3 g e),
     hm := (hm g)(x := h2 g d x), clk := Suc (clk g)\<rparr>"

lemma wb2_inv:
  assumes inv: "ginv L S P s g" and dty: "dirty (l2 s d x)"
  shows "ginv L S P (write_back_l2 d x s) (wb2g L S P s g d x)"
proof -
  define g' where "g' = wb2g L S P s g d x"
  obtain v f where l: "l2 s d x = Some (v, Dirty, f)"
    using dty by (auto simp: dirty_iff)
  define s' where "s' = write_back_l2 d x s"
  have s': "l1 s' = l1 s" "l2 s' = (l2 s)(d := (l2 s d)(x := Some (v, Clean, f)))"
      "mem s' = (mem s)(x := v)" "regs s' = regs s" "pc s' = pc s"
    using l by (simp_all add: s'_def write_back_l2_def set_l2_def)
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have wxs: "wx S P s' = wx S P s" using wx_same[OF s'(5)] .
  have pends: "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
    using pend_same[OF s'(5)] by simp_all
  have dones: "done_ev S P s' = done_ev S P s" "kd S P s' = kd S P s"
    using done_same[OF s'(5)] kd_same[OF s'(5)] by simp_all
  define R where "R = pend2 L S P s g d x"
  have d2: "dirty2 L S P s g d x" using di by (simp add: dirty_inv_iff)
  have hR: "h2 g d x \<in> R" and Rmax: "\<forall>e \<in> R. e = h2 g d x \<or> the (ga2 g e) < the (ga2 g (h2 g d x))
                  \<or> (the (ga2 g e) = the (ga2 g (h2 g d x)) \<and> gt g e < gt g (h2 g d x))"
    using d2 dty by (simp_all add: dirty2_def R_def)
  have RD: "e \<in> R \<Longrightarrow> wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> dev_of L (wg_of L t) = d) \<and> ga2 g e \<noteq> None \<and> ga3 g e = None" for e
    using pend2_D by (simp add: R_def)
  have g'f: "gv g' = gv g" "grf g' = grf g" "gt g' = gt g" "ga2 g' = ga2 g" "h1 g' = h1 g" "h2 g' = h2 g"
      "clk g' = Suc (clk g)" "ga3 g' = (\<lambda>e. if e \<in> R then Some (clk g) else ga3 g e)"
      "hm g' = (hm g)(x := h2 g d x)"
    by (simp_all add: g'_def wb2g_def R_def)
  have p1': "pend1 L S P s' g' = pend1 L S P s g"
    by (simp add: pend1_def[abs_def] pends wxs g'f)
  have p2m: "pend2 L S P s' g' d' y = pend2 L S P s g d' y - R" for d' y
    by (auto simp: pend2_def pends wxs g'f)
  have p2': "pend2 L S P s' g' d' y = (if d' = d \<and> y = x then {} else pend2 L S P s g d' y)" for d' y
  proof (cases "d' = d \<and> y = x")
    case True
    then show ?thesis using p2m by (simp add: R_def)
  next
    case False
    have "d' = d \<and> y = x" if "e \<in> R" "e \<in> pend2 L S P s g d' y" for e
    proof -
      have a: "wx S P s x e \<and> (\<exists>t k p. e = Acc t k p \<and> dev_of L (wg_of L t) = d)" using RD that(1) by blast
      have b: "wx S P s y e \<and> (\<exists>t k p. e = Acc t k p \<and> dev_of L (wg_of L t) = d')" using pend2_D that(2) by blast
      have "sloc P e = Some x" "sloc P e = Some y" using a b wx_loc by blast+
      moreover have "d' = d" using a b by auto
      ultimately show ?thesis by simp
    qed
    then show ?thesis using p2m False by auto
  qed
  have "line2 S P s g d x" using li by (simp add: lines_inv_iff)
  then have l2v: "val_of (l2 s d x) = gv g (h2 g d x)" "wx S P s x (h2 g d x)"
    using l by (simp_all add: line2_def)
  have hperf: "0 < gt g (h2 g d x) \<and> gt g (h2 g d x) < clk g"
  proof -
    obtain t k p where "h2 g d x = Acc t k p" using RD[OF hR] by blast
    then show ?thesis using time_perf[OF ti l2v(2)] by simp
  qed
  have "line1 S P s' g' w' y" for w' y
    using li by (simp add: lines_inv_iff line1_def s'(1) g'f wxs)
  moreover have "line2 S P s' g' d' y" for d' y
  proof (cases "d' = d \<and> y = x")
    case True
    then show ?thesis using l2v l by (simp add: line2_def s'(2) g'f wxs)
  next
    case False
    then have "l2 s' d' y = l2 s d' y" by (auto simp: s'(2))
    then show ?thesis using li by (simp add: lines_inv_iff line2_def g'f wxs)
  qed
  moreover have "cell S P s' g' y" for y
  proof (cases "y = x")
    case False
    have c: "cell S P s g y" using li by (simp add: lines_inv_iff)
    have nR: "wx S P s y e \<Longrightarrow> e \<notin> R" for e
      using RD[of e] wx_loc[of S P s y e] wx_loc[of S P s x e] False by auto
    have ks: "wx S P s y e \<Longrightarrow> key g' e = key g e" for e
      using nR[of e] by (simp add: key_def g'f)
    have h: "wx S P s y (hm g y)" using c by (simp add: cell_def)
    have "\<forall>e. wx S P s y e \<and> ga3 g' e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
    proof (intro allI impI)
      fix e assume e: "wx S P s y e \<and> ga3 g' e \<noteq> None"
      then have "ga3 g e \<noteq> None" using nR[of e] by (simp add: g'f)
      then have "e = hm g y \<or> klt (key g e) (key g (hm g y))" using c e unfolding cell_def by blast
      then show "e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
        using ks[of e] ks[of "hm g y"] e h by simp
    qed
    moreover have "ga3 g' (hm g y) \<noteq> None" using c nR[OF h] by (simp add: cell_def g'f)
    ultimately show ?thesis using c False unfolding cell_def s'(3) g'f wxs by simp
  next
    case True
    have k: "key g' (h2 g d x) = (clk g, the (ga2 g (h2 g d x)), gt g (h2 g d x))"
      using hR by (simp add: key_def g'f)
    have "\<forall>e. wx S P s x e \<and> ga3 g' e \<noteq> None \<longrightarrow> e = h2 g d x \<or> klt (key g' e) (key g' (h2 g d x))"
    proof (intro allI impI)
      fix e assume e: "wx S P s x e \<and> ga3 g' e \<noteq> None"
      show "e = h2 g d x \<or> klt (key g' e) (key g' (h2 g d x))"
      proof (cases "e \<in> R")
        case True
        then have "key g' e = (clk g, the (ga2 g e), gt g e)" by (simp add: key_def g'f)
        then show ?thesis using Rmax True k by (auto simp: klt_def)
      next
        case False
        then obtain n where n: "ga3 g e = Some n" using e by (auto simp: g'f)
        have "n < clk g"
        proof (cases "\<exists>z. e = Init z")
          case True
          then have "n = 0" using ti n by (auto simp: time_inv_def)
          then show ?thesis using hperf by simp
        next
          case False
          then show ?thesis using time_perf[OF ti, of x e] e n by auto
        qed
        moreover have "key g' e = (n, the (ga2 g e), gt g e)" using False n by (simp add: key_def g'f)
        ultimately show ?thesis using k by (simp add: klt_def)
      qed
    qed
    moreover have "ga3 g' (h2 g d x) \<noteq> None" using hR by (simp add: g'f)
    ultimately show ?thesis using True l2v l hR unfolding cell_def s'(3) g'f wxs by simp
  qed
  ultimately have "lines_inv S P s' g'"
    by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    then show "dirty1 L S P s' g' w' y" unfolding dirty1_def p1' s'(1) g'f .
  next
    fix d' y
    show "dirty2 L S P s' g' d' y"
    proof (cases "d' = d \<and> y = x")
      case True
      then show ?thesis by (simp add: dirty2_def p2' s'(2) dirty_def)
    next
      case False
      have e: "l2 s' d' y = l2 s d' y" "pend2 L S P s' g' d' y = pend2 L S P s g d' y"
        using False by (auto simp: s'(2) p2')
      have "dirty2 L S P s g d' y" using di by (simp add: dirty_inv_iff)
      then show ?thesis unfolding dirty2_def e g'f(3) g'f(4) g'f(6) .
    qed
  qed
  moreover have "time_inv S P s' g'"
  proof -
    have "e \<in> R \<Longrightarrow> (\<forall>x. e \<noteq> Init x)" for e using RD by blast
    then have t1: "\<forall>x. gt g' (Init x) = 0 \<and> ga2 g' (Init x) = Some 0 \<and> ga3 g' (Init x) = Some 0"
      using ti unfolding time_inv_def g'f by auto
    have t2: "0 < gt g' e \<and> gt g' e < clk g' \<and> (\<forall>n. ga2 g' e = Some n \<longrightarrow> n < clk g')
      \<and> (\<forall>n. ga3 g' e = Some n \<longrightarrow> n < clk g') \<and> (ga2 g' e = None \<longrightarrow> ga3 g' e = None)"
      if e: "is_wr P e" "done_ev S P s' e" "\<forall>x. e \<noteq> Init x" for e
    proof -
      obtain y where y: "sloc P e = Some y"
        using wr_loc[OF e(1)] by blast
      have wxe: "wx S P s y e" using e y by (simp add: wx_def dones)
      note tp = time_perf[OF ti wxe e(3)]
      have "e \<in> R \<Longrightarrow> ga2 g e \<noteq> None" using RD by blast
      then show ?thesis
        using tp by (auto simp: g'f)
    qed
    have t3: "e = e'" if tt: "is_wr P e" "done_ev S P s' e" "is_wr P e'" "done_ev S P s' e'" "gt g' e = gt g' e'"
        "\<forall>x. e \<noteq> Init x" "\<forall>x. e' \<noteq> Init x" for e e'
    proof -
      obtain y where y: "sloc P e = Some y" using wr_loc[OF tt(1)] by blast
      obtain y' where y': "sloc P e' = Some y'" using wr_loc[OF tt(3)] by blast
      have "wx S P s y e" "wx S P s y' e'" using tt y y' by (simp_all add: wx_def dones)
      then show ?thesis
        by (rule time_inj[OF ti _ _ tt(6) tt(7)]) (use tt(5) in \<open>simp add: g'f\<close>)
    qed
    show ?thesis unfolding time_inv_def using t1 t2 t3 by blast
  qed
  moreover have "ev_inv S P s' g'"
    using ei unfolding ev_inv_def dones g'f s'(4) s'(5) .
  ultimately show ?thesis
    by (simp add: ginv_def s'_def g'_def)
qed


lemma fetch1_inv:
  assumes inv: "ginv L S P s g" and f: "fetch_l1 L w x s = Some s'"
  shows "ginv L S P s' (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
proof -
  define g' where "g' = g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>"
  define d where "d = dev_of L w"
  have c: "l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid)" "readable (l2 s d x)"
    and s'0: "s' = set_l1 w x (Some (val_of (l2 s d x), Clean, Valid)) s"
    using f by (auto simp: fetch_l1_def d_def split: if_splits)
  have s': "l1 s' = (l1 s)(w := (l1 s w)(x := Some (val_of (l2 s d x), Clean, Valid)))" "l2 s' = l2 s"
      "mem s' = mem s" "regs s' = regs s" "pc s' = pc s"
    using s'0 by (simp_all add: set_l1_def)
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have wxs: "wx S P s' = wx S P s" using wx_same[OF s'(5)] .
  have pends: "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
    using pend_same[OF s'(5)] by simp_all
  have dones: "done_ev S P s' = done_ev S P s" "kd S P s' = kd S P s"
    using done_same[OF s'(5)] kd_same[OF s'(5)] by simp_all
  have g'f: "gv g' = gv g" "grf g' = grf g" "gt g' = gt g" "ga2 g' = ga2 g" "ga3 g' = ga3 g" "h2 g' = h2 g"
      "hm g' = hm g" "clk g' = clk g" "h1 g' = (h1 g)(w := (h1 g w)(x := h2 g d x))"
    by (simp_all add: g'_def d_def)
  have pe: "pend1 L S P s' g' = pend1 L S P s g" "pend2 L S P s' g' = pend2 L S P s g"
    by (simp_all add: pend1_def[abs_def] pend2_def[abs_def] wxs g'f)
  have "line2 S P s g d x" using li by (simp add: lines_inv_iff)
  then have l2v: "val_of (l2 s d x) = gv g (h2 g d x)" "wx S P s x (h2 g d x)"
    using c(2) by (auto simp: line2_def readable_def split: option.splits)
  have nd: "\<not> dirty (l1 s w x)" using c(1) by (auto simp: dirty_iff)
  have "line1 S P s' g' w' y" for w' y
  proof (cases "w' = w \<and> y = x")
    case True
    then show ?thesis using l2v by (simp add: line1_def s'(1) g'f wxs)
  next
    case False
    then have "l1 s' w' y = l1 s w' y" "h1 g' w' y = h1 g w' y" by (auto simp: s'(1) g'f)
    then show ?thesis using li by (simp add: lines_inv_iff line1_def g'f wxs)
  qed
  moreover have "line2 S P s' g' d' y" "cell S P s' g' y" for d' y
    using li by (simp_all add: lines_inv_iff line2_def cell_def s'(2,3) g'f wxs key_def)
  ultimately have "lines_inv S P s' g'" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have o: "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    show "dirty1 L S P s' g' w' y"
    proof (cases "w' = w \<and> y = x")
      case True
      then have "pend1 L S P s g w' y = {}" using o nd by (simp add: dirty1_def)
      then show ?thesis using True by (simp add: dirty1_def pe s'(1) dirty_def)
    next
      case False
      then have "l1 s' w' y = l1 s w' y" "h1 g' w' y = h1 g w' y" by (auto simp: s'(1) g'f)
      then show ?thesis using o unfolding dirty1_def pe g'f(3) by simp
    qed
  next
    fix d' y
    have "dirty2 L S P s g d' y" using di by (simp add: dirty_inv_iff)
    then show "dirty2 L S P s' g' d' y" unfolding dirty2_def pe s'(2) g'f(3) g'f(4) g'f(6) .
  qed
  moreover have "time_inv S P s' g'"
    using ti unfolding time_inv_def dones g'f .
  moreover have "ev_inv S P s' g'"
    using ei unfolding ev_inv_def dones g'f s'(4) s'(5) .
  ultimately show ?thesis
    by (simp add: ginv_def g'_def)
qed

lemma fetch2_inv:
  assumes inv: "ginv L S P s g" and f: "fetch_l2 d x s = Some s'"
  shows "ginv L S P s' (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
proof -
  define g' where "g' = g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>"
  have nd: "\<not> dirty (l2 s d x)" and s'0: "s' = set_l2 d x (Some (mem s x, Clean, Valid)) s"
    using f by (auto simp: fetch_l2_def dirty_def split: if_splits option.splits hygiene.splits freshness.splits)
      (metis freshness.exhaust)
  have s': "l1 s' = l1 s" "l2 s' = (l2 s)(d := (l2 s d)(x := Some (mem s x, Clean, Valid)))"
      "mem s' = mem s" "regs s' = regs s" "pc s' = pc s"
    using s'0 by (simp_all add: set_l2_def)
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have wxs: "wx S P s' = wx S P s" using wx_same[OF s'(5)] .
  have dones: "done_ev S P s' = done_ev S P s" "kd S P s' = kd S P s"
    using done_same[OF s'(5)] kd_same[OF s'(5)] by simp_all
  have g'f: "gv g' = gv g" "grf g' = grf g" "gt g' = gt g" "ga2 g' = ga2 g" "ga3 g' = ga3 g" "h1 g' = h1 g"
      "hm g' = hm g" "clk g' = clk g" "h2 g' = (h2 g)(d := (h2 g d)(x := hm g x))"
    by (simp_all add: g'_def)
  have pe: "pend1 L S P s' g' = pend1 L S P s g" "pend2 L S P s' g' = pend2 L S P s g"
    by (simp_all add: pend1_def[abs_def] pend2_def[abs_def] wxs g'f)
  have "cell S P s g x" using li by (simp add: lines_inv_iff)
  then have cv: "mem s x = gv g (hm g x)" "wx S P s x (hm g x)" by (simp_all add: cell_def)
  have "line1 S P s' g' w' y" "cell S P s' g' y" for w' y
    using li by (simp_all add: lines_inv_iff line1_def cell_def s'(1,3) g'f wxs key_def)
  moreover have "line2 S P s' g' d' y" for d' y
  proof (cases "d' = d \<and> y = x")
    case True
    then show ?thesis using cv by (simp add: line2_def s'(2) g'f wxs)
  next
    case False
    then have "l2 s' d' y = l2 s d' y" "h2 g' d' y = h2 g d' y" by (auto simp: s'(2) g'f)
    then show ?thesis using li by (simp add: lines_inv_iff line2_def g'f wxs)
  qed
  ultimately have "lines_inv S P s' g'" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    then show "dirty1 L S P s' g' w' y" unfolding dirty1_def pe s'(1) g'f(3) g'f(6) .
  next
    fix d' y
    have o: "dirty2 L S P s g d' y" using di by (simp add: dirty_inv_iff)
    show "dirty2 L S P s' g' d' y"
    proof (cases "d' = d \<and> y = x")
      case True
      then have "pend2 L S P s g d' y = {}" using o nd by (simp add: dirty2_def)
      then show ?thesis using True by (simp add: dirty2_def pe s'(2) dirty_def)
    next
      case False
      then have "l2 s' d' y = l2 s d' y" "h2 g' d' y = h2 g d' y" by (auto simp: s'(2) g'f)
      then show ?thesis using o unfolding dirty2_def pe g'f(3) g'f(4) by simp
    qed
  qed
  moreover have "time_inv S P s' g'"
    using ti unfolding time_inv_def dones g'f .
  moreover have "ev_inv S P s' g'"
    using ei unfolding ev_inv_def dones g'f s'(4) s'(5) .
  ultimately show ?thesis
    by (simp add: ginv_def g'_def)
qed

lemma evict1_inv:
  assumes inv: "ginv L S P s g" and nd: "\<not> dirty (l1 s w x)"
  shows "ginv L S P (set_l1 w x None s) g"
proof -
  define s' where "s' = set_l1 w x None s"
  have s': "l1 s' = (l1 s)(w := (l1 s w)(x := None))" "l2 s' = l2 s" "mem s' = mem s" "regs s' = regs s" "pc s' = pc s"
    by (simp_all add: s'_def set_l1_def)
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have wxs: "wx S P s' = wx S P s" using wx_same[OF s'(5)] .
  have pe: "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
    using pend_same[OF s'(5)] by simp_all
  have dones: "done_ev S P s' = done_ev S P s" "kd S P s' = kd S P s"
    using done_same[OF s'(5)] kd_same[OF s'(5)] by simp_all
  have "line1 S P s' g w' y" "line2 S P s' g d' y" "cell S P s' g y" for w' d' y
    using li by (simp_all add: lines_inv_iff line1_def line2_def cell_def s'(1-3) wxs)
  then have "lines_inv S P s' g" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have o: "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    show "dirty1 L S P s' g w' y"
    proof (cases "w' = w \<and> y = x")
      case True
      then have "pend1 L S P s g w' y = {}" using o nd by (simp add: dirty1_def)
      then show ?thesis using True by (simp add: dirty1_def pe s'(1) dirty_def)
    next
      case False
      then have "l1 s' w' y = l1 s w' y" by (auto simp: s'(1))
      then show ?thesis using o unfolding dirty1_def pe by simp
    qed
  next
    fix d' y
    have "dirty2 L S P s g d' y" using di by (simp add: dirty_inv_iff)
    then show "dirty2 L S P s' g d' y" unfolding dirty2_def pe s'(2) .
  qed
  moreover have "time_inv S P s' g"
    using ti unfolding time_inv_def dones .
  moreover have "ev_inv S P s' g"
    using ei unfolding ev_inv_def dones s'(4) s'(5) .
  ultimately show ?thesis
    by (simp add: ginv_def s'_def)
qed

lemma evict2_inv:
  assumes inv: "ginv L S P s g" and nd: "\<not> dirty (l2 s d x)"
  shows "ginv L S P (set_l2 d x None s) g"
proof -
  define s' where "s' = set_l2 d x None s"
  have s': "l1 s' = l1 s" "l2 s' = (l2 s)(d := (l2 s d)(x := None))" "mem s' = mem s" "regs s' = regs s" "pc s' = pc s"
    by (simp_all add: s'_def set_l2_def)
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have wxs: "wx S P s' = wx S P s" using wx_same[OF s'(5)] .
  have pe: "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
    using pend_same[OF s'(5)] by simp_all
  have dones: "done_ev S P s' = done_ev S P s" "kd S P s' = kd S P s"
    using done_same[OF s'(5)] kd_same[OF s'(5)] by simp_all
  have "line1 S P s' g w' y" "line2 S P s' g d' y" "cell S P s' g y" for w' d' y
    using li by (simp_all add: lines_inv_iff line1_def line2_def cell_def s'(1-3) wxs)
  then have "lines_inv S P s' g" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    then show "dirty1 L S P s' g w' y" unfolding dirty1_def pe s'(1) .
  next
    fix d' y
    have o: "dirty2 L S P s g d' y" using di by (simp add: dirty_inv_iff)
    show "dirty2 L S P s' g d' y"
    proof (cases "d' = d \<and> y = x")
      case True
      then have "pend2 L S P s g d' y = {}" using o nd by (simp add: dirty2_def)
      then show ?thesis using True by (simp add: dirty2_def pe s'(2) dirty_def)
    next
      case False
      then have "l2 s' d' y = l2 s d' y" by (auto simp: s'(2))
      then show ?thesis using o unfolding dirty2_def pe by simp
    qed
  qed
  moreover have "time_inv S P s' g"
    using ti unfolding time_inv_def dones .
  moreover have "ev_inv S P s' g"
    using ei unfolding ev_inv_def dones s'(4) s'(5) .
  ultimately show ?thesis
    by (simp add: ginv_def s'_def)
qed

text \<open>Every environment step keeps the invariant, with the ghost updated.\<close>
lemma ginv_env:
  assumes inv: "ginv L S P s g" and st: "s' \<in> env_step L wb s"
  shows "\<exists>g'. ginv L S P s' g'"
proof -
  have fifo1: "ginv L S P (s\<lparr>l1_fifo := q\<rparr>) g" for q
    using ginv_cong[of "s\<lparr>l1_fifo := q\<rparr>" s] inv by simp
  have fifo2: "ginv L S P (s\<lparr>l2_fifo := q\<rparr>) g" for q
    using ginv_cong[of "s\<lparr>l2_fifo := q\<rparr>" s] inv by simp
  from env_step_cases[OF st] show ?thesis
  proof (elim disjE exE conjE)
    fix w x assume "fetch_l1 L w x s = Some s'"
    then show ?thesis using fetch1_inv[OF inv] by blast
  next
    fix d x assume "fetch_l2 d x s = Some s'"
    then show ?thesis using fetch2_inv[OF inv] by blast
  next
    fix w assume "dequeue_l1 L w s = Some s'"
    then show ?thesis
    proof (cases rule: dequeue_l1_cases)
      case (1 q)
      then show ?thesis using fifo1 by blast
    next
      case (2 q x)
      have "dirty (l1 (s\<lparr>l1_fifo := q\<rparr>) w x)" using 2(1) by simp
      then show ?thesis using wb1_inv[OF fifo1] 2(2) by blast
    qed
  next
    fix d assume "dequeue_l2 d s = Some s'"
    then show ?thesis
    proof (cases rule: dequeue_l2_cases)
      case (1 q)
      then show ?thesis using fifo2 by blast
    next
      case (2 q x)
      have "dirty (l2 (s\<lparr>l2_fifo := q\<rparr>) d x)" using 2(1) by simp
      then show ?thesis using wb2_inv[OF fifo2] 2(2) by blast
    qed
  next
    fix w x assume "dirty (l1 s w x)" "s' = write_back_l1 L w x s"
    then show ?thesis using wb1_inv[OF inv] by blast
  next
    fix d x assume "dirty (l2 s d x)" "s' = write_back_l2 d x s"
    then show ?thesis using wb2_inv[OF inv] by blast
  next
    fix w x assume "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
    then show ?thesis using evict1_inv[OF inv] by blast
  next
    fix d x assume "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
    then show ?thesis using evict2_inv[OF inv] by blast
  qed
qed


section \<open>Thread steps keep the invariant\<close>

lemma tregs_cong: "(\<forall>j < k. f j = f' j) \<Longrightarrow> tregs cs f k = tregs cs f' k"
  by (induction k) auto

lemma done_kd: "kd S P s' = kd S P s \<Longrightarrow> done_ev S P s' = done_ev S P s"
proof -
  assume a: "kd S P s' = kd S P s"
  have "done_ev S P s' e = done_ev S P s e" for e
    using a by (cases e) simp_all
  then show ?thesis by blast
qed

lemma done_Suc:
  assumes "kd S P s' = (kd S P s)(t := Suc (kd S P s t))"
  shows "done_ev S P s' e \<longleftrightarrow> done_ev S P s e \<or> (\<exists>p. e = Acc t (kd S P s t) p)"
  using assms by (cases e) (auto simp: less_Suc_eq)

lemma ev_loc': "acc P t i p \<Longrightarrow> addr_of (ins P t i) = Some x \<Longrightarrow> x \<in> src_locs P"
  by (auto simp: acc_def src_locs_def)

lemma wx_Init_wr: "wx S P s x e \<Longrightarrow> x \<in> src_locs P \<Longrightarrow> is_wr P e"
  by (cases e) (auto simp: wx_def)

lemma ev_parts:
  assumes "ev_inv S P s g"
  shows "\<forall>x. gv g (Init x) = src_init P x"
   and "\<forall>r. is_rd P r \<and> done_ev S P s r \<longrightarrow> gv g r = gv g (grf g r) \<and> is_wr P (grf g r)
        \<and> sloc P (grf g r) = sloc P r \<and> done_ev S P s (grf g r)"
   and "\<forall>t k r x sc rm. acc P t k False \<longrightarrow> k < kd S P s t \<longrightarrow> ins P t k = Op (Store sc rm) r x
        \<longrightarrow> gv g (Acc t k False) = tregs (src_code P t) (reads_val (gv g) t) k r"
   and "\<forall>t k. acc P t k True \<longrightarrow> k < kd S P s t \<longrightarrow> gv g (Acc t k True) = gv g (Acc t k False) + 1"
   and "\<forall>t \<in> src_threads P. regs s t = tregs (src_code P t) (reads_val (gv g) t) (kd S P s t)"
   and "\<forall>t. t \<notin> src_threads P \<longrightarrow> regs s t = (\<lambda>_. 0) \<and> pc s t = 0"
proof -
  note a = assms[unfolded ev_inv_def]
  show "\<forall>x. gv g (Init x) = src_init P x" by (rule conjunct1[OF a])
  show "\<forall>r. is_rd P r \<and> done_ev S P s r \<longrightarrow> gv g r = gv g (grf g r) \<and> is_wr P (grf g r)
        \<and> sloc P (grf g r) = sloc P r \<and> done_ev S P s (grf g r)" by (rule conjunct1[OF conjunct2[OF a]])
  show "\<forall>t k r x sc rm. acc P t k False \<longrightarrow> k < kd S P s t \<longrightarrow> ins P t k = Op (Store sc rm) r x
        \<longrightarrow> gv g (Acc t k False) = tregs (src_code P t) (reads_val (gv g) t) k r"
    by (rule conjunct1[OF conjunct2[OF conjunct2[OF a]]])
  show "\<forall>t k. acc P t k True \<longrightarrow> k < kd S P s t \<longrightarrow> gv g (Acc t k True) = gv g (Acc t k False) + 1"
    by (rule conjunct1[OF conjunct2[OF conjunct2[OF conjunct2[OF a]]]])
  show "\<forall>t \<in> src_threads P. regs s t = tregs (src_code P t) (reads_val (gv g) t) (kd S P s t)"
    by (rule conjunct1[OF conjunct2[OF conjunct2[OF conjunct2[OF conjunct2[OF a]]]]])
  show "\<forall>t. t \<notin> src_threads P \<longrightarrow> regs s t = (\<lambda>_. 0) \<and> pc s t = 0"
    by (rule conjunct2[OF conjunct2[OF conjunct2[OF conjunct2[OF conjunct2[OF a]]]]])
qed

text \<open>A step of thread t leaves the registers and pc of every other
  thread, so those of the threads P does not have stay as they began.\<close>
lemma ev_others:
  assumes "ev_inv S P s g" "t \<in> src_threads P" "\<forall>u. u \<noteq> t \<longrightarrow> regs s' u = regs s u"
    "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
  shows "\<forall>u. u \<notin> src_threads P \<longrightarrow> regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0"
proof (intro allI impI)
  fix u assume u: "u \<notin> src_threads P"
  then have "u \<noteq> t" using assms(2) by blast
  moreover have "regs s u = (\<lambda>_. 0) \<and> pc s u = 0" using ev_parts(6)[OF assms(1)] u by blast
  ultimately show "regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0" using assms(3,4) by simp
qed

lemma time_inv_sub:
  assumes a: "time_inv S P s g" and b: "\<And>e. is_wr P e \<Longrightarrow> done_ev S P s' e \<Longrightarrow> done_ev S P s e"
  shows "time_inv S P s' g"
proof -
  note a' = a[unfolded time_inv_def]
  have c1: "\<forall>x. gt g (Init x) = 0 \<and> ga2 g (Init x) = Some 0 \<and> ga3 g (Init x) = Some 0"
    by (rule conjunct1[OF a'])
  have c2: "\<forall>e. is_wr P e \<and> done_ev S P s e \<and> (\<forall>x. e \<noteq> Init x) \<longrightarrow>
        0 < gt g e \<and> gt g e < clk g \<and> (\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g)
      \<and> (\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
    by (rule conjunct1[OF conjunct2[OF a']])
  have c3: "\<forall>e e'. is_wr P e \<and> done_ev S P s e \<and> is_wr P e' \<and> done_ev S P s e' \<and> gt g e = gt g e'
        \<and> (\<forall>x. e \<noteq> Init x) \<and> (\<forall>x. e' \<noteq> Init x) \<longrightarrow> e = e'"
    by (rule conjunct2[OF conjunct2[OF a']])
  show ?thesis
    unfolding time_inv_def
  proof (intro conjI)
    show "\<forall>x. gt g (Init x) = 0 \<and> ga2 g (Init x) = Some 0 \<and> ga3 g (Init x) = Some 0" by (rule c1)
    show "\<forall>e. is_wr P e \<and> done_ev S P s' e \<and> (\<forall>x. e \<noteq> Init x) \<longrightarrow>
        0 < gt g e \<and> gt g e < clk g \<and> (\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g)
      \<and> (\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
    proof (intro allI impI)
      fix e assume e: "is_wr P e \<and> done_ev S P s' e \<and> (\<forall>x. e \<noteq> Init x)"
      then have "is_wr P e \<and> done_ev S P s e \<and> (\<forall>x. e \<noteq> Init x)" using b by blast
      then show "0 < gt g e \<and> gt g e < clk g \<and> (\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g)
      \<and> (\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
        using c2 by blast
    qed
    show "\<forall>e e'. is_wr P e \<and> done_ev S P s' e \<and> is_wr P e' \<and> done_ev S P s' e' \<and> gt g e = gt g e'
        \<and> (\<forall>x. e \<noteq> Init x) \<and> (\<forall>x. e' \<noteq> Init x) \<longrightarrow> e = e'"
    proof (intro allI impI)
      fix e e' assume e: "is_wr P e \<and> done_ev S P s' e \<and> is_wr P e' \<and> done_ev S P s' e' \<and> gt g e = gt g e'
        \<and> (\<forall>x. e \<noteq> Init x) \<and> (\<forall>x. e' \<noteq> Init x)"
      then have "is_wr P e \<and> done_ev S P s e \<and> is_wr P e' \<and> done_ev S P s e' \<and> gt g e = gt g e'
        \<and> (\<forall>x. e \<noteq> Init x) \<and> (\<forall>x. e' \<noteq> Init x)" using b by blast
      then show "e = e'" using c3 by blast
    qed
  qed
qed

text \<open>A step that performs no event of P (a register move, or an
  instruction of no source operation) and leaves the lines' values alone.\<close>
lemma mov_inv:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and k: "k = kd S P s t" "k < length (src_code P t)"
    and c: "ins P t k = SetReg r v"
    and s': "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s" "regs s' = (regs s)(t := (regs s t)(r := v))"
      "kd S P s' = (kd S P s)(t := Suc k)" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
  shows "ginv L S P s' g"
proof -
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have noacc: "\<not> acc P t k p" for p using c by (simp add: acc_def)
  have de: "done_ev S P s' e \<longleftrightarrow> done_ev S P s e \<or> (\<exists>p. e = Acc t k p)" for e
    using done_Suc[of S P s' s t] s'(5) k(1) by simp
  have wrd: "is_wr P e \<and> done_ev S P s' e \<longleftrightarrow> is_wr P e \<and> done_ev S P s e" for e
    using de[of e] noacc by auto
  have rdd: "is_rd P e \<and> done_ev S P s' e \<longleftrightarrow> is_rd P e \<and> done_ev S P s e" for e
    using de[of e] noacc by auto
  have wxs: "wx S P s' = wx S P s"
    unfolding wx_def[abs_def] using wrd by blast
  have pe: "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
    by (simp_all add: pend1_def[abs_def] pend2_def[abs_def] wxs)
  have "lines_inv S P s' g" using li unfolding lines_inv_def s'(1-3) wxs .
  moreover have "dirty_inv L S P s' g" using di unfolding dirty_inv_def s'(1-2) pe .
  moreover have "time_inv S P s' g"
    using time_inv_sub[OF ti] wrd by blast
  moreover have "ev_inv S P s' g"
  proof -
    have e1: "\<forall>x. gv g (Init x) = src_init P x" using ev_parts(1)[OF ei] .
    have e2: "\<forall>r. is_rd P r \<and> done_ev S P s' r \<longrightarrow> gv g r = gv g (grf g r) \<and> is_wr P (grf g r)
        \<and> sloc P (grf g r) = sloc P r \<and> done_ev S P s' (grf g r)"
    proof (intro allI impI)
      fix r assume r: "is_rd P r \<and> done_ev S P s' r"
      then have "is_rd P r \<and> done_ev S P s r" using rdd by blast
      moreover note ev_parts(2)[OF ei]
      ultimately have "gv g r = gv g (grf g r) \<and> is_wr P (grf g r) \<and> sloc P (grf g r) = sloc P r \<and> done_ev S P s (grf g r)"
        by blast
      then show "gv g r = gv g (grf g r) \<and> is_wr P (grf g r) \<and> sloc P (grf g r) = sloc P r \<and> done_ev S P s' (grf g r)"
        using de[of "grf g r"] by blast
    qed
    have e3: "\<forall>u j r x sc rm. acc P u j False \<longrightarrow> j < kd S P s' u \<longrightarrow> ins P u j = Op (Store sc rm) r x
        \<longrightarrow> gv g (Acc u j False) = tregs (src_code P u) (reads_val (gv g) u) j r"
    proof (intro allI impI)
      fix u j r x sc rm assume a: "acc P u j False" "j < kd S P s' u" "ins P u j = Op (Store sc rm) r x"
      then have "j < kd S P s u" using s'(5) k(1) c by (cases "u = t") (auto simp: less_Suc_eq)
      then show "gv g (Acc u j False) = tregs (src_code P u) (reads_val (gv g) u) j r"
        using ev_parts(3)[OF ei] a by blast
    qed
    have e4: "\<forall>u j. acc P u j True \<longrightarrow> j < kd S P s' u \<longrightarrow> gv g (Acc u j True) = gv g (Acc u j False) + 1"
    proof (intro allI impI)
      fix u j assume a: "acc P u j True" "j < kd S P s' u"
      then have "j < kd S P s u" using s'(5) k(1) noacc by (cases "u = t") (auto simp: less_Suc_eq)
      then show "gv g (Acc u j True) = gv g (Acc u j False) + 1"
        using ev_parts(4)[OF ei] a by blast
    qed
    have e5: "\<forall>u \<in> src_threads P. regs s' u = tregs (src_code P u) (reads_val (gv g) u) (kd S P s' u)"
    proof
      fix u assume u: "u \<in> src_threads P"
      have o: "regs s u = tregs (src_code P u) (reads_val (gv g) u) (kd S P s u)"
        using ev_parts(5)[OF ei] u by blast
      show "regs s' u = tregs (src_code P u) (reads_val (gv g) u) (kd S P s' u)"
      proof (cases "u = t")
        case True
        then show ?thesis using o s'(4,5) k c by (simp add: ins_def)
      next
        case False
        then show ?thesis using o s'(4,5) by simp
      qed
    qed
    have e6: "\<forall>u. u \<notin> src_threads P \<longrightarrow> regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0"
      by (rule ev_others[OF ei t _ s'(6)]) (simp add: s'(4))
    show ?thesis unfolding ev_inv_def using e1 e2 e3 e4 e5 e6 by blast
  qed
  ultimately show ?thesis by (simp add: ginv_def)
qed


text \<open>A load: its read event reads from the write h whose value v its line holds.\<close>
lemma ld_inv:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and k: "k = kd S P s t" "k < length (src_code P t)"
    and c: "ins P t k = Op (Load sc rm) r x" and h: "v = gv g h" "wx S P s x h"
    and s': "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s" "regs s' = (regs s)(t := (regs s t)(r := v))"
      "kd S P s' = (kd S P s)(t := Suc k)" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
  shows "ginv L S P s' (g\<lparr>gv := (gv g)(Acc t k False := v), grf := (grf g)(Acc t k False := h)\<rparr>)"
proof -
  define re where "re = Acc t k False"
  define g' where "g' = g\<lparr>gv := (gv g)(re := v), grf := (grf g)(re := h)\<rparr>"
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have acc_re: "acc P t k False" using t k c by (simp add: acc_def)
  have nowr: "\<not> wr (ins P t k) p" for p using c by simp
  have rd_re: "is_rd P re" using acc_re c by (simp add: re_def)
  have de: "done_ev S P s' e \<longleftrightarrow> done_ev S P s e \<or> (\<exists>p. e = Acc t k p)" for e
    using done_Suc[of S P s' s t] s'(5) k(1) by simp
  have wrd: "is_wr P e \<and> done_ev S P s' e \<longleftrightarrow> is_wr P e \<and> done_ev S P s e" for e
    using de[of e] nowr by auto
  have wxs: "wx S P s' = wx S P s"
    unfolding wx_def[abs_def] using wrd by blast
  have nre: "e \<noteq> re" if "wx S P s y e" for y e
  proof
    assume "e = re"
    then have "is_wr P re" using that by (simp add: wx_def re_def)
    then show False using rd_re rd_not_wr by blast
  qed
  have g'f: "gt g' = gt g" "ga2 g' = ga2 g" "ga3 g' = ga3 g" "h1 g' = h1 g" "h2 g' = h2 g" "hm g' = hm g"
      "clk g' = clk g" "gv g' = (gv g)(re := v)" "grf g' = (grf g)(re := h)"
    by (simp_all add: g'_def)
  have gvw: "wx S P s y e \<Longrightarrow> gv g' e = gv g e" for y e
    using nre[of y e] by (simp add: g'f)
  have pe: "pend1 L S P s' g' = pend1 L S P s g" "pend2 L S P s' g' = pend2 L S P s g"
    by (simp_all add: pend1_def[abs_def] pend2_def[abs_def] wxs g'f)
  have ks: "key g' = key g" by (simp add: key_def[abs_def] g'f)
  have "line1 S P s' g' w y" "line2 S P s' g' d y" "cell S P s' g' y" for w d y
  proof -
    have o: "line1 S P s g w y" "line2 S P s g d y" "cell S P s g y" using li by (simp_all add: lines_inv_iff)
    show "line1 S P s' g' w y" using o(1) gvw[of y "h1 g w y"] by (auto simp: line1_def s'(1) wxs g'f)
    show "line2 S P s' g' d y" using o(2) gvw[of y "h2 g d y"] by (auto simp: line2_def s'(2) wxs g'f)
    show "cell S P s' g' y" using o(3) gvw[of y "hm g y"] unfolding cell_def s'(3) wxs g'f(3,6) ks by simp
  qed
  then have "lines_inv S P s' g'" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'" using di unfolding dirty_inv_def s'(1-2) pe g'f .
  moreover have "time_inv S P s' g'"
  proof -
    have "time_inv S P s g'" using ti unfolding time_inv_def g'f .
    then show ?thesis using time_inv_sub wrd by blast
  qed
  moreover have "ev_inv S P s' g'"
  proof -
    have e1: "\<forall>x. gv g' (Init x) = src_init P x" using ev_parts(1)[OF ei] by (simp add: g'f re_def)
    have hx: "x \<in> src_locs P" using ev_loc'[OF acc_re] c by simp
    have e2: "\<forall>r. is_rd P r \<and> done_ev S P s' r \<longrightarrow> gv g' r = gv g' (grf g' r) \<and> is_wr P (grf g' r)
        \<and> sloc P (grf g' r) = sloc P r \<and> done_ev S P s' (grf g' r)"
    proof (intro allI impI)
      fix q assume q: "is_rd P q \<and> done_ev S P s' q"
      show "gv g' q = gv g' (grf g' q) \<and> is_wr P (grf g' q) \<and> sloc P (grf g' q) = sloc P q \<and> done_ev S P s' (grf g' q)"
      proof (cases "q = re")
        case True
        have "is_wr P h" using wx_Init_wr[OF h(2) hx] .
        moreover have "sloc P h = Some x" using wx_loc[OF h(2)] .
        moreover have "done_ev S P s h" using h(2) by (cases h) (auto simp: wx_def)
        ultimately show ?thesis using True h(1) gvw[OF h(2)] c de[of h] by (simp add: g'f re_def)
      next
        case False
        then have "done_ev S P s q" using q de[of q] by (auto simp: re_def dest: rd_part)
        then have o: "gv g q = gv g (grf g q) \<and> is_wr P (grf g q) \<and> sloc P (grf g q) = sloc P q \<and> done_ev S P s (grf g q)"
          using ev_parts(2)[OF ei] q by blast
        then have "grf g q \<noteq> re" using rd_re rd_not_wr[of P re] by auto
        then show ?thesis using o False de[of "grf g q"] by (simp add: g'f)
      qed
    qed
    have rv: "j \<le> k \<Longrightarrow> tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j" for u j
      by (rule tregs_cong) (auto simp: reads_val_def g'f re_def)
    have e3: "\<forall>u j r x sc rm. acc P u j False \<longrightarrow> j < kd S P s' u \<longrightarrow> ins P u j = Op (Store sc rm) r x
        \<longrightarrow> gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r"
    proof (intro allI impI)
      fix u j r' y sc' rm' assume a: "acc P u j False" "j < kd S P s' u" "ins P u j = Op (Store sc' rm') r' y"
      have jk: "j < kd S P s u" using a(2,3) s'(5) k(1) c by (cases "u = t") (auto simp: less_Suc_eq)
      then have o: "gv g (Acc u j False) = tregs (src_code P u) (reads_val (gv g) u) j r'"
        using ev_parts(3)[OF ei] a by blast
      have "Acc u j False \<noteq> re" using jk k(1) by (auto simp: re_def)
      moreover have "tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j"
      proof (cases "u = t")
        case True
        then show ?thesis using rv jk k(1) by simp
      next
        case False
        then show ?thesis by (intro tregs_cong) (auto simp: reads_val_def g'f re_def)
      qed
      ultimately show "gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r'"
        using o by (simp add: g'f)
    qed
    have e4: "\<forall>u j. acc P u j True \<longrightarrow> j < kd S P s' u \<longrightarrow> gv g' (Acc u j True) = gv g' (Acc u j False) + 1"
    proof (intro allI impI)
      fix u j assume a: "acc P u j True" "j < kd S P s' u"
      have "\<not> acc P t k True" using nowr c by (simp add: acc_def)
      then have jk: "j < kd S P s u" using a s'(5) k(1) by (cases "u = t") (auto simp: less_Suc_eq)
      then have "gv g (Acc u j True) = gv g (Acc u j False) + 1" using ev_parts(4)[OF ei] a by blast
      moreover have "Acc u j False \<noteq> re" using jk k(1) by (auto simp: re_def)
      moreover have "Acc u j True \<noteq> re" by (simp add: re_def)
      ultimately show "gv g' (Acc u j True) = gv g' (Acc u j False) + 1" by (simp add: g'f)
    qed
    have e5: "\<forall>u \<in> src_threads P. regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
    proof
      fix u assume u: "u \<in> src_threads P"
      have o: "regs s u = tregs (src_code P u) (reads_val (gv g) u) (kd S P s u)"
        using ev_parts(5)[OF ei] u by blast
      show "regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
      proof (cases "u = t")
        case True
        have "tregs (src_code P t) (reads_val (gv g') t) k = tregs (src_code P t) (reads_val (gv g) t) k"
          using rv by simp
        then show ?thesis using True o s'(4,5) k c by (simp add: ins_def reads_val_def g'f re_def)
      next
        case False
        have "tregs (src_code P u) (reads_val (gv g') u) (kd S P s u) = tregs (src_code P u) (reads_val (gv g) u) (kd S P s u)"
          using False by (intro tregs_cong) (auto simp: reads_val_def g'f re_def)
        then show ?thesis using False o s'(4,5) by simp
      qed
    qed
    have e6: "\<forall>u. u \<notin> src_threads P \<longrightarrow> regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0"
      by (rule ev_others[OF ei t _ s'(6)]) (simp add: s'(4))
    show ?thesis unfolding ev_inv_def using e1 e2 e3 e4 e5 e6 by blast
  qed
  ultimately show ?thesis by (simp add: ginv_def g'_def re_def)
qed


text \<open>A store: its write event is performed into its work-group's L1 line,
  at a new time, not yet at the L2.\<close>
lemma st_inv:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and k: "k = kd S P s t" "k < length (src_code P t)"
    and c: "ins P t k = Op (Store sc rm) r x" and v: "v = regs s t r" and w: "w = wg_of L t"
    and s': "l1 s' = (l1 s)(w := (l1 s w)(x := Some (v, Dirty, Valid)))" "l2 s' = l2 s" "mem s' = mem s" "regs s' = regs s"
      "kd S P s' = (kd S P s)(t := Suc k)" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
  shows "ginv L S P s' (g\<lparr>gv := (gv g)(Acc t k False := v), gt := (gt g)(Acc t k False := Suc (clk g)),
     ga2 := (ga2 g)(Acc t k False := None), ga3 := (ga3 g)(Acc t k False := None),
     h1 := (h1 g)(w := (h1 g w)(x := Acc t k False)), clk := Suc (Suc (clk g))\<rparr>)"
proof -
  define we where "we = Acc t k False"
  define T where "T = Suc (clk g)"
  define g' where "g' = g\<lparr>gv := (gv g)(we := v), gt := (gt g)(we := T), ga2 := (ga2 g)(we := None),
     ga3 := (ga3 g)(we := None), h1 := (h1 g)(w := (h1 g w)(x := we)), clk := Suc T\<rparr>"
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have acc_we: "acc P t k False" using t k c by (simp add: acc_def)
  have wr_we: "is_wr P we" "sloc P we = Some x" using acc_we c by (simp_all add: we_def)
  have nacc: "\<not> acc P t k True" using c by (simp add: acc_def)
  have nd: "\<not> done_ev S P s we" using k(1) by (simp add: we_def)
  have de: "done_ev S P s' e \<longleftrightarrow> done_ev S P s e \<or> (\<exists>p. e = Acc t k p)" for e
    using done_Suc[of S P s' s t] s'(5) k(1) by simp
  have wxs: "wx S P s' y e \<longleftrightarrow> wx S P s y e \<or> (e = we \<and> y = x)" for y e
  proof
    assume a: "wx S P s' y e"
    show "wx S P s y e \<or> (e = we \<and> y = x)"
    proof (cases "\<exists>p. e = Acc t k p")
      case True
      then have "e = we" using a nacc by (auto simp: wx_def we_def acc_def)
      moreover have "y = x" using wx_loc[OF a] wr_we(2) \<open>e = we\<close> by simp
      ultimately show ?thesis by blast
    next
      case False
      then show ?thesis using a de[of e] by (auto simp: wx_def)
    qed
  next
    assume "wx S P s y e \<or> (e = we \<and> y = x)"
    then show "wx S P s' y e" using de[of e] wr_we by (auto simp: wx_def we_def)
  qed
  have nwe: "e \<noteq> we" if "wx S P s y e" for y e
  proof
    assume "e = we"
    then show False using that nd by (simp add: wx_def we_def)
  qed
  have g'f: "gv g' = (gv g)(we := v)" "gt g' = (gt g)(we := T)" "ga2 g' = (ga2 g)(we := None)"
      "ga3 g' = (ga3 g)(we := None)" "h1 g' = (h1 g)(w := (h1 g w)(x := we))" "h2 g' = h2 g" "hm g' = hm g"
      "clk g' = Suc T" "grf g' = grf g"
    by (simp_all add: g'_def)
  have old: "gv g' e = gv g e" "gt g' e = gt g e" "ga2 g' e = ga2 g e" "ga3 g' e = ga3 g e" "key g' e = key g e"
    if "wx S P s y e" for y e
    using nwe[OF that] by (simp_all add: g'f key_def)
  have tp: "gt g e < clk g" if "wx S P s y e" "\<forall>z. e \<noteq> Init z" for y e
    using time_perf[OF ti that] by auto
  have p1': "pend1 L S P s' g' w' y = pend1 L S P s g w' y \<union> (if w' = w \<and> y = x then {we} else {})" for w' y
  proof (intro set_eqI iffI)
    fix e assume e: "e \<in> pend1 L S P s' g' w' y"
    show "e \<in> pend1 L S P s g w' y \<union> (if w' = w \<and> y = x then {we} else {})"
    proof (cases "e = we")
      case True
      have "wx S P s' y we" "ewg L we = Some w'" using e True by (simp_all add: pend1_def)
      then have "y = x" "w' = w" using wxs[of y we] nwe[of y we] w by (auto simp: we_def)
      then show ?thesis using True by simp
    next
      case False
      then show ?thesis using e by (auto simp: pend1_def wxs g'f)
    qed
  next
    fix e assume e: "e \<in> pend1 L S P s g w' y \<union> (if w' = w \<and> y = x then {we} else {})"
    show "e \<in> pend1 L S P s' g' w' y"
    proof (cases "e \<in> pend1 L S P s g w' y")
      case True
      then have "wx S P s y e" by (simp add: pend1_def)
      then show ?thesis using True old[of y e] by (simp add: pend1_def wxs)
    next
      case False
      then have "e = we" "w' = w" "y = x" using e by (auto split: if_splits)
      then show ?thesis using wr_we w by (simp add: pend1_def wxs g'f we_def)
    qed
  qed
  have p2': "pend2 L S P s' g' = pend2 L S P s g"
  proof (intro ext set_eqI)
    fix d y e
    show "e \<in> pend2 L S P s' g' d y \<longleftrightarrow> e \<in> pend2 L S P s g d y"
    proof (cases "e = we")
      case True
      then show ?thesis using nwe by (auto simp: pend2_def g'f)
    next
      case False
      then show ?thesis by (simp add: pend2_def wxs g'f)
    qed
  qed
  have "line1 S P s' g' w' y" "line2 S P s' g' d y" "cell S P s' g' y" for w' d y
  proof -
    have o: "line1 S P s g w' y" "line2 S P s g d y" "cell S P s g y" using li by (simp_all add: lines_inv_iff)
    show "line1 S P s' g' w' y"
    proof (cases "w' = w \<and> y = x")
      case True
      then show ?thesis using wxs[of x we] by (simp add: line1_def s'(1) g'f)
    next
      case False
      then have e: "l1 s' w' y = l1 s w' y" "h1 g' w' y = h1 g w' y" by (auto simp: s'(1) g'f)
      show ?thesis
      proof (cases "l1 s w' y = None")
        case True
        then show ?thesis using e by (simp add: line1_def)
      next
        case False
        then have a: "val_of (l1 s w' y) = gv g (h1 g w' y)" "wx S P s y (h1 g w' y)" using o(1) by (simp_all add: line1_def)
        show ?thesis unfolding line1_def e using a old(1)[OF a(2)] wxs by simp
      qed
    qed
    show "line2 S P s' g' d y"
    proof (cases "l2 s d y = None")
      case True
      then show ?thesis by (simp add: line2_def s'(2))
    next
      case False
      then have a: "val_of (l2 s d y) = gv g (h2 g d y)" "wx S P s y (h2 g d y)" using o(2) by (simp_all add: line2_def)
      show ?thesis unfolding line2_def s'(2) g'f(6) using a old(1)[OF a(2)] wxs by simp
    qed
    show "cell S P s' g' y"
    proof -
      have c: "mem s y = gv g (hm g y)" "wx S P s y (hm g y)" "ga3 g (hm g y) \<noteq> None"
        "\<forall>e. wx S P s y e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g e) (key g (hm g y))"
        using o(3) by (simp_all add: cell_def)
      have "\<forall>e. wx S P s' y e \<and> ga3 g' e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
      proof (intro allI impI)
        fix e assume e: "wx S P s' y e \<and> ga3 g' e \<noteq> None"
        then have "e \<noteq> we" by (auto simp: g'f)
        then have e2: "wx S P s y e" using e wxs by blast
        then have "ga3 g e \<noteq> None" using e old by simp
        then show "e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
          using c(4) e2 old[OF e2] old[OF c(2)] by simp
      qed
      then show ?thesis using c old[OF c(2)] wxs unfolding cell_def s'(3) g'f(7) by simp
    qed
  qed
  then have "lines_inv S P s' g'" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have o: "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    show "dirty1 L S P s' g' w' y"
    proof (cases "w' = w \<and> y = x")
      case True
      have "gt g' e \<le> gt g' we" if "e \<in> pend1 L S P s g w x" for e
      proof -
        have a: "wx S P s x e" "\<forall>z. e \<noteq> Init z" using pend1_D[OF that] by auto
        have "gt g' e = gt g e" using old(2)[OF a(1)] .
        moreover have "gt g e < clk g" using tp[OF a] .
        moreover have "gt g' we = Suc (clk g)" by (simp add: g'f T_def)
        ultimately show ?thesis by simp
      qed
      then show ?thesis using True by (auto simp: dirty1_def p1' s'(1) dirty_def g'f)
    next
      case False
      then have "l1 s' w' y = l1 s w' y" "h1 g' w' y = h1 g w' y" "pend1 L S P s' g' w' y = pend1 L S P s g w' y"
        by (auto simp: s'(1) g'f p1')
      moreover have "e \<in> pend1 L S P s g w' y \<Longrightarrow> gt g' e = gt g e" for e
        using old by (auto simp: pend1_def)
      moreover have "dirty (l1 s w' y) \<Longrightarrow> gt g' (h1 g w' y) = gt g (h1 g w' y)"
        using o old by (auto simp: dirty1_def pend1_def)
      ultimately show ?thesis using o unfolding dirty1_def by auto
    qed
  next
    fix d y
    have o: "dirty2 L S P s g d y" using di by (simp add: dirty_inv_iff)
    have e: "e \<in> pend2 L S P s g d y \<Longrightarrow> gt g' e = gt g e \<and> ga2 g' e = ga2 g e" for e
      using old by (auto simp: pend2_def)
    have "dirty (l2 s d y) \<Longrightarrow> h2 g d y \<in> pend2 L S P s g d y" using o by (simp add: dirty2_def)
    then show "dirty2 L S P s' g' d y" using o e unfolding dirty2_def p2' s'(2) g'f(6) by auto
  qed
  moreover have "time_inv S P s' g'"
  proof -
    have t1: "\<forall>x. gt g' (Init x) = 0 \<and> ga2 g' (Init x) = Some 0 \<and> ga3 g' (Init x) = Some 0"
      using ti by (simp add: time_inv_def g'f we_def)
    have t2: "0 < gt g' e \<and> gt g' e < clk g' \<and> (\<forall>n. ga2 g' e = Some n \<longrightarrow> n < clk g')
      \<and> (\<forall>n. ga3 g' e = Some n \<longrightarrow> n < clk g') \<and> (ga2 g' e = None \<longrightarrow> ga3 g' e = None)"
      if e: "is_wr P e" "done_ev S P s' e" "\<forall>x. e \<noteq> Init x" for e
    proof (cases "e = we")
      case True
      then show ?thesis by (simp add: g'f T_def)
    next
      case False
      obtain y where y: "sloc P e = Some y" using wr_loc[OF e(1)] by blast
      have "wx S P s' y e" using e y by (simp add: wx_def)
      then have wxe: "wx S P s y e" using False wxs by blast
      show ?thesis using time_perf[OF ti wxe e(3)] old[OF wxe] by (auto simp: g'f T_def)
    qed
    have t3: "e = e'" if tt: "is_wr P e" "done_ev S P s' e" "is_wr P e'" "done_ev S P s' e'" "gt g' e = gt g' e'"
        "\<forall>x. e \<noteq> Init x" "\<forall>x. e' \<noteq> Init x" for e e'
    proof -
      obtain y where y: "sloc P e = Some y" using wr_loc[OF tt(1)] by blast
      obtain y' where y': "sloc P e' = Some y'" using wr_loc[OF tt(3)] by blast
      have a: "wx S P s' y e" "wx S P s' y' e'" using tt y y' by (simp_all add: wx_def)
      show ?thesis
      proof (cases "e = we \<or> e' = we")
        case True
        then show ?thesis
        proof
          assume ew: "e = we"
          show ?thesis
          proof (rule ccontr)
            assume "e \<noteq> e'"
            then have "wx S P s y' e'" using a(2) wxs ew by blast
            then show False using tp[of y' e'] tt(7) old tt(5) ew by (simp add: g'f T_def)
          qed
        next
          assume ew: "e' = we"
          show ?thesis
          proof (rule ccontr)
            assume "e \<noteq> e'"
            then have "wx S P s y e" using a(1) wxs ew by blast
            then show False using tp[of y e] tt(6) old tt(5) ew by (simp add: g'f T_def)
          qed
        qed
      next
        case False
        then have "wx S P s y e" "wx S P s y' e'" using a wxs by blast+
        then show ?thesis
          by (rule time_inj[OF ti _ _ tt(6) tt(7)]) (use tt(5) False in \<open>simp add: g'f\<close>)
      qed
    qed
    show ?thesis unfolding time_inv_def using t1 t2 t3 by blast
  qed
  moreover have "ev_inv S P s' g'"
  proof -
    have e1: "\<forall>x. gv g' (Init x) = src_init P x" using ev_parts(1)[OF ei] by (simp add: g'f we_def)
    have e2: "\<forall>r. is_rd P r \<and> done_ev S P s' r \<longrightarrow> gv g' r = gv g' (grf g' r) \<and> is_wr P (grf g' r)
        \<and> sloc P (grf g' r) = sloc P r \<and> done_ev S P s' (grf g' r)"
    proof (intro allI impI)
      fix q assume q: "is_rd P q \<and> done_ev S P s' q"
      have "\<not> (\<exists>p. q = Acc t k p)" using q c nacc by (auto simp: acc_def)
      then have "done_ev S P s q" using q de[of q] by blast
      then have o: "gv g q = gv g (grf g q) \<and> is_wr P (grf g q) \<and> sloc P (grf g q) = sloc P q \<and> done_ev S P s (grf g q)"
        using ev_parts(2)[OF ei] q by blast
      then have "grf g q \<noteq> we" "q \<noteq> we" using nd q rd_not_wr wr_we by auto
      then show "gv g' q = gv g' (grf g' q) \<and> is_wr P (grf g' q) \<and> sloc P (grf g' q) = sloc P q \<and> done_ev S P s' (grf g' q)"
        using o de[of "grf g q"] by (simp add: g'f)
    qed
    have rv: "j \<le> k \<Longrightarrow> tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j" for u j
      by (rule tregs_cong) (auto simp: reads_val_def g'f we_def)
    have rvo: "u \<noteq> t \<Longrightarrow> tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j" for u j
      by (rule tregs_cong) (auto simp: reads_val_def g'f we_def)
    have regt: "regs s t = tregs (src_code P t) (reads_val (gv g) t) k"
      using ev_parts(5)[OF ei] t k(1) by blast
    have e3: "\<forall>u j r x sc rm. acc P u j False \<longrightarrow> j < kd S P s' u \<longrightarrow> ins P u j = Op (Store sc rm) r x
        \<longrightarrow> gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r"
    proof (intro allI impI)
      fix u j r' y sc' rm' assume a: "acc P u j False" "j < kd S P s' u" "ins P u j = Op (Store sc' rm') r' y"
      show "gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r'"
      proof (cases "u = t \<and> j = k")
        case True
        then show ?thesis using rv[of k t] regt v c a(3) by (simp add: g'f we_def)
      next
        case False
        then have jk: "j < kd S P s u" using a(2) s'(5) k(1) by (cases "u = t") (auto simp: less_Suc_eq)
        then have o: "gv g (Acc u j False) = tregs (src_code P u) (reads_val (gv g) u) j r'"
          using ev_parts(3)[OF ei] a by blast
        have "tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j"
          using rv rvo jk k(1) by (cases "u = t") auto
        moreover have "Acc u j False \<noteq> we" using False by (auto simp: we_def)
        ultimately show ?thesis using o by (simp add: g'f)
      qed
    qed
    have e4: "\<forall>u j. acc P u j True \<longrightarrow> j < kd S P s' u \<longrightarrow> gv g' (Acc u j True) = gv g' (Acc u j False) + 1"
    proof (intro allI impI)
      fix u j assume a: "acc P u j True" "j < kd S P s' u"
      then have jk: "j < kd S P s u" using nacc s'(5) k(1) by (cases "u = t") (auto simp: less_Suc_eq)
      then have "gv g (Acc u j True) = gv g (Acc u j False) + 1" using ev_parts(4)[OF ei] a by blast
      moreover have "Acc u j False \<noteq> we" using jk k(1) by (auto simp: we_def)
      moreover have "Acc u j True \<noteq> we" by (simp add: we_def)
      ultimately show "gv g' (Acc u j True) = gv g' (Acc u j False) + 1" by (simp add: g'f)
    qed
    have e5: "\<forall>u \<in> src_threads P. regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
    proof
      fix u assume u: "u \<in> src_threads P"
      have o: "regs s u = tregs (src_code P u) (reads_val (gv g) u) (kd S P s u)"
        using ev_parts(5)[OF ei] u by blast
      show "regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
      proof (cases "u = t")
        case True
        then show ?thesis using rv[of k t] regt s'(4,5) k c by (simp add: ins_def)
      next
        case False
        then show ?thesis using rvo[OF False] o s'(4,5) by simp
      qed
    qed
    have e6: "\<forall>u. u \<notin> src_threads P \<longrightarrow> regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0"
      by (rule ev_others[OF ei t _ s'(6)]) (simp add: s'(4))
    show ?thesis unfolding ev_inv_def using e1 e2 e3 e4 e5 e6 by blast
  qed
  ultimately show ?thesis by (simp add: ginv_def g'_def we_def T_def)
qed

text \<open>An increment in the L1: its read event reads from the write h its
  work-group's line holds, its write event is performed into that line.\<close>
lemma incl1_inv:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and k: "k = kd S P s t" "k < length (src_code P t)"
    and c: "ins P t k = Op (FetchInc sc rm) r x" and h: "v = gv g h" "wx S P s x h" and w: "w = wg_of L t"
    and s': "l1 s' = (l1 s)(w := (l1 s w)(x := Some (v + 1, Dirty, Valid)))" "l2 s' = l2 s" "mem s' = mem s"
      "regs s' = (regs s)(t := (regs s t)(r := v))"
      "kd S P s' = (kd S P s)(t := Suc k)" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
  shows "ginv L S P s' (g\<lparr>gv := (gv g)(Acc t k False := v, Acc t k True := v + 1),
     grf := (grf g)(Acc t k False := h), gt := (gt g)(Acc t k True := Suc (clk g)),
     ga2 := (ga2 g)(Acc t k True := None), ga3 := (ga3 g)(Acc t k True := None),
     h1 := (h1 g)(w := (h1 g w)(x := Acc t k True)), clk := Suc (Suc (clk g))\<rparr>)"
proof -
  define we where "we = Acc t k True"
  define re where "re = Acc t k False"
  define T where "T = Suc (clk g)"
  define g' where "g' = g\<lparr>gv := (gv g)(re := v, we := v + 1), grf := (grf g)(re := h), gt := (gt g)(we := T),
     ga2 := (ga2 g)(we := None), ga3 := (ga3 g)(we := None), h1 := (h1 g)(w := (h1 g w)(x := we)), clk := Suc T\<rparr>"
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have acc_we: "acc P t k True" using t k c by (simp add: acc_def)
  have acc_re: "acc P t k False" using t k c by (simp add: acc_def)
  have wr_we: "is_wr P we" "sloc P we = Some x" using acc_we c by (simp_all add: we_def)
  have rd_re: "is_rd P re" "\<not> is_wr P re" "sloc P re = Some x" using acc_re c by (simp_all add: re_def)
  have nd: "\<not> done_ev S P s we" "\<not> done_ev S P s re" using k(1) by (simp_all add: we_def re_def)
  have de: "done_ev S P s' e \<longleftrightarrow> done_ev S P s e \<or> (\<exists>p. e = Acc t k p)" for e
    using done_Suc[of S P s' s t] s'(5) k(1) by simp
  have wxs: "wx S P s' y e \<longleftrightarrow> wx S P s y e \<or> (e = we \<and> y = x)" for y e
  proof
    assume a: "wx S P s' y e"
    show "wx S P s y e \<or> (e = we \<and> y = x)"
    proof (cases "\<exists>p. e = Acc t k p")
      case True
      then have "e = we" using a c by (auto simp: wx_def we_def)
      moreover have "y = x" using wx_loc[OF a] wr_we(2) \<open>e = we\<close> by simp
      ultimately show ?thesis by blast
    next
      case False
      then show ?thesis using a de[of e] by (auto simp: wx_def)
    qed
  next
    assume "wx S P s y e \<or> (e = we \<and> y = x)"
    then show "wx S P s' y e" using de[of e] wr_we by (auto simp: wx_def we_def)
  qed
  have nwe: "e \<noteq> we" if "wx S P s y e" for y e
  proof
    assume "e = we"
    then show False using that nd by (simp add: wx_def we_def)
  qed
  have nre: "e \<noteq> re" if "wx S P s y e" for y e
  proof
    assume "e = re"
    then show False using that nd by (simp add: wx_def re_def)
  qed
  have g'f: "gv g' = (gv g)(re := v, we := v + 1)" "gt g' = (gt g)(we := T)" "ga2 g' = (ga2 g)(we := None)"
      "ga3 g' = (ga3 g)(we := None)" "h1 g' = (h1 g)(w := (h1 g w)(x := we))" "h2 g' = h2 g" "hm g' = hm g"
      "clk g' = Suc T" "grf g' = (grf g)(re := h)"
    by (simp_all add: g'_def)
  have old: "gv g' e = gv g e" "gt g' e = gt g e" "ga2 g' e = ga2 g e" "ga3 g' e = ga3 g e" "key g' e = key g e"
    if "wx S P s y e" for y e
    using nwe[OF that] nre[OF that] by (simp_all add: g'f key_def)
  have tp: "gt g e < clk g" if "wx S P s y e" "\<forall>z. e \<noteq> Init z" for y e
    using time_perf[OF ti that] by auto
  have p1': "pend1 L S P s' g' w' y = pend1 L S P s g w' y \<union> (if w' = w \<and> y = x then {we} else {})" for w' y
  proof (intro set_eqI iffI)
    fix e assume e: "e \<in> pend1 L S P s' g' w' y"
    show "e \<in> pend1 L S P s g w' y \<union> (if w' = w \<and> y = x then {we} else {})"
    proof (cases "e = we")
      case True
      have "wx S P s' y we" "ewg L we = Some w'" using e True by (simp_all add: pend1_def)
      then have "y = x" "w' = w" using wxs[of y we] nwe[of y we] w by (auto simp: we_def)
      then show ?thesis using True by simp
    next
      case False
      then show ?thesis using e by (auto simp: pend1_def wxs g'f)
    qed
  next
    fix e assume e: "e \<in> pend1 L S P s g w' y \<union> (if w' = w \<and> y = x then {we} else {})"
    show "e \<in> pend1 L S P s' g' w' y"
    proof (cases "e \<in> pend1 L S P s g w' y")
      case True
      then have "wx S P s y e" by (simp add: pend1_def)
      then show ?thesis using True old[of y e] by (simp add: pend1_def wxs)
    next
      case False
      then have "e = we" "w' = w" "y = x" using e by (auto split: if_splits)
      then show ?thesis using wr_we w by (simp add: pend1_def wxs g'f we_def)
    qed
  qed
  have p2': "pend2 L S P s' g' = pend2 L S P s g"
  proof (intro ext set_eqI)
    fix d y e
    show "e \<in> pend2 L S P s' g' d y \<longleftrightarrow> e \<in> pend2 L S P s g d y"
    proof (cases "e = we")
      case True
      then show ?thesis using nwe by (auto simp: pend2_def g'f)
    next
      case False
      then show ?thesis by (simp add: pend2_def wxs g'f)
    qed
  qed
  have "line1 S P s' g' w' y" "line2 S P s' g' d y" "cell S P s' g' y" for w' d y
  proof -
    have o: "line1 S P s g w' y" "line2 S P s g d y" "cell S P s g y" using li by (simp_all add: lines_inv_iff)
    show "line1 S P s' g' w' y"
    proof (cases "w' = w \<and> y = x")
      case True
      then show ?thesis using wxs[of x we] by (simp add: line1_def s'(1) g'f)
    next
      case False
      then have e: "l1 s' w' y = l1 s w' y" "h1 g' w' y = h1 g w' y" by (auto simp: s'(1) g'f)
      show ?thesis
      proof (cases "l1 s w' y = None")
        case True
        then show ?thesis using e by (simp add: line1_def)
      next
        case False
        then have a: "val_of (l1 s w' y) = gv g (h1 g w' y)" "wx S P s y (h1 g w' y)" using o(1) by (simp_all add: line1_def)
        show ?thesis unfolding line1_def e using a old(1)[OF a(2)] wxs by simp
      qed
    qed
    show "line2 S P s' g' d y"
    proof (cases "l2 s d y = None")
      case True
      then show ?thesis by (simp add: line2_def s'(2))
    next
      case False
      then have a: "val_of (l2 s d y) = gv g (h2 g d y)" "wx S P s y (h2 g d y)" using o(2) by (simp_all add: line2_def)
      show ?thesis unfolding line2_def s'(2) g'f(6) using a old(1)[OF a(2)] wxs by simp
    qed
    show "cell S P s' g' y"
    proof -
      have c: "mem s y = gv g (hm g y)" "wx S P s y (hm g y)" "ga3 g (hm g y) \<noteq> None"
        "\<forall>e. wx S P s y e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g e) (key g (hm g y))"
        using o(3) by (simp_all add: cell_def)
      have "\<forall>e. wx S P s' y e \<and> ga3 g' e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
      proof (intro allI impI)
        fix e assume e: "wx S P s' y e \<and> ga3 g' e \<noteq> None"
        then have "e \<noteq> we" by (auto simp: g'f)
        then have e2: "wx S P s y e" using e wxs by blast
        then have "ga3 g e \<noteq> None" using e old by simp
        then show "e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
          using c(4) e2 old[OF e2] old[OF c(2)] by simp
      qed
      then show ?thesis using c old[OF c(2)] wxs unfolding cell_def s'(3) g'f(7) by simp
    qed
  qed
  then have "lines_inv S P s' g'" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have o: "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    show "dirty1 L S P s' g' w' y"
    proof (cases "w' = w \<and> y = x")
      case True
      have "gt g' e \<le> gt g' we" if "e \<in> pend1 L S P s g w x" for e
      proof -
        have a: "wx S P s x e" "\<forall>z. e \<noteq> Init z" using pend1_D[OF that] by auto
        have "gt g' e = gt g e" using old(2)[OF a(1)] .
        moreover have "gt g e < clk g" using tp[OF a] .
        moreover have "gt g' we = Suc (clk g)" by (simp add: g'f T_def)
        ultimately show ?thesis by simp
      qed
      then show ?thesis using True by (auto simp: dirty1_def p1' s'(1) dirty_def g'f)
    next
      case False
      then have "l1 s' w' y = l1 s w' y" "h1 g' w' y = h1 g w' y" "pend1 L S P s' g' w' y = pend1 L S P s g w' y"
        by (auto simp: s'(1) g'f p1')
      moreover have "e \<in> pend1 L S P s g w' y \<Longrightarrow> gt g' e = gt g e" for e
        using old by (auto simp: pend1_def)
      moreover have "dirty (l1 s w' y) \<Longrightarrow> gt g' (h1 g w' y) = gt g (h1 g w' y)"
        using o old by (auto simp: dirty1_def pend1_def)
      ultimately show ?thesis using o unfolding dirty1_def by auto
    qed
  next
    fix d y
    have o: "dirty2 L S P s g d y" using di by (simp add: dirty_inv_iff)
    have e: "e \<in> pend2 L S P s g d y \<Longrightarrow> gt g' e = gt g e \<and> ga2 g' e = ga2 g e" for e
      using old by (auto simp: pend2_def)
    have "dirty (l2 s d y) \<Longrightarrow> h2 g d y \<in> pend2 L S P s g d y" using o by (simp add: dirty2_def)
    then show "dirty2 L S P s' g' d y" using o e unfolding dirty2_def p2' s'(2) g'f(6) by auto
  qed
  moreover have "time_inv S P s' g'"
  proof -
    have t1: "\<forall>x. gt g' (Init x) = 0 \<and> ga2 g' (Init x) = Some 0 \<and> ga3 g' (Init x) = Some 0"
      using ti by (simp add: time_inv_def g'f we_def)
    have t2: "0 < gt g' e \<and> gt g' e < clk g' \<and> (\<forall>n. ga2 g' e = Some n \<longrightarrow> n < clk g')
      \<and> (\<forall>n. ga3 g' e = Some n \<longrightarrow> n < clk g') \<and> (ga2 g' e = None \<longrightarrow> ga3 g' e = None)"
      if e: "is_wr P e" "done_ev S P s' e" "\<forall>x. e \<noteq> Init x" for e
    proof (cases "e = we")
      case True
      then show ?thesis by (simp add: g'f T_def)
    next
      case False
      obtain y where y: "sloc P e = Some y" using wr_loc[OF e(1)] by blast
      have "wx S P s' y e" using e y by (simp add: wx_def)
      then have wxe: "wx S P s y e" using False wxs by blast
      show ?thesis using time_perf[OF ti wxe e(3)] old[OF wxe] by (auto simp: g'f T_def)
    qed
    have t3: "e = e'" if tt: "is_wr P e" "done_ev S P s' e" "is_wr P e'" "done_ev S P s' e'" "gt g' e = gt g' e'"
        "\<forall>x. e \<noteq> Init x" "\<forall>x. e' \<noteq> Init x" for e e'
    proof -
      obtain y where y: "sloc P e = Some y" using wr_loc[OF tt(1)] by blast
      obtain y' where y': "sloc P e' = Some y'" using wr_loc[OF tt(3)] by blast
      have a: "wx S P s' y e" "wx S P s' y' e'" using tt y y' by (simp_all add: wx_def)
      show ?thesis
      proof (cases "e = we \<or> e' = we")
        case True
        then show ?thesis
        proof
          assume ew: "e = we"
          show ?thesis
          proof (rule ccontr)
            assume "e \<noteq> e'"
            then have "wx S P s y' e'" using a(2) wxs ew by blast
            then show False using tp[of y' e'] tt(7) old tt(5) ew by (simp add: g'f T_def)
          qed
        next
          assume ew: "e' = we"
          show ?thesis
          proof (rule ccontr)
            assume "e \<noteq> e'"
            then have "wx S P s y e" using a(1) wxs ew by blast
            then show False using tp[of y e] tt(6) old tt(5) ew by (simp add: g'f T_def)
          qed
        qed
      next
        case False
        then have "wx S P s y e" "wx S P s y' e'" using a wxs by blast+
        then show ?thesis
          by (rule time_inj[OF ti _ _ tt(6) tt(7)]) (use tt(5) False in \<open>simp add: g'f\<close>)
      qed
    qed
    show ?thesis unfolding time_inv_def using t1 t2 t3 by blast
  qed
  moreover have "ev_inv S P s' g'"
  proof -
    have e1: "\<forall>x. gv g' (Init x) = src_init P x" using ev_parts(1)[OF ei] by (simp add: g'f we_def re_def)
    have e2: "\<forall>r. is_rd P r \<and> done_ev S P s' r \<longrightarrow> gv g' r = gv g' (grf g' r) \<and> is_wr P (grf g' r)
        \<and> sloc P (grf g' r) = sloc P r \<and> done_ev S P s' (grf g' r)"
    proof (intro allI impI)
      fix q assume q: "is_rd P q \<and> done_ev S P s' q"
      show "gv g' q = gv g' (grf g' q) \<and> is_wr P (grf g' q) \<and> sloc P (grf g' q) = sloc P q \<and> done_ev S P s' (grf g' q)"
      proof (cases "q = re")
        case True
        have hx: "x \<in> src_locs P" using ev_loc'[OF acc_re] c by simp
        have "is_wr P h" using wx_Init_wr[OF h(2) hx] .
        moreover have "sloc P h = Some x" using wx_loc[OF h(2)] .
        moreover have "done_ev S P s h" using h(2) by (cases h) (auto simp: wx_def)
        moreover have "gv g' h = gv g h" using old(1)[OF h(2)] .
        ultimately show ?thesis using True h(1) de[of h] rd_re(3) by (simp add: g'f re_def we_def)
      next
        case False
        have "q \<noteq> we" using q rd_not_wr wr_we by auto
        then have "done_ev S P s q" using q de[of q] False by (auto simp: re_def we_def)
        then have o: "gv g q = gv g (grf g q) \<and> is_wr P (grf g q) \<and> sloc P (grf g q) = sloc P q \<and> done_ev S P s (grf g q)"
          using ev_parts(2)[OF ei] q by blast
        then have "grf g q \<noteq> we" "grf g q \<noteq> re" using nd by auto
        then show ?thesis using o de[of "grf g q"] False \<open>q \<noteq> we\<close> by (simp add: g'f)
      qed
    qed
    have rv: "j \<le> k \<Longrightarrow> tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j" for u j
      by (rule tregs_cong) (auto simp: reads_val_def g'f we_def re_def)
    have rvo: "u \<noteq> t \<Longrightarrow> tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j" for u j
      by (rule tregs_cong) (auto simp: reads_val_def g'f we_def re_def)
    have regt: "regs s t = tregs (src_code P t) (reads_val (gv g) t) k"
      using ev_parts(5)[OF ei] t k(1) by blast
    have e3: "\<forall>u j r x sc rm. acc P u j False \<longrightarrow> j < kd S P s' u \<longrightarrow> ins P u j = Op (Store sc rm) r x
        \<longrightarrow> gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r"
    proof (intro allI impI)
      fix u j r' y sc' rm' assume a: "acc P u j False" "j < kd S P s' u" "ins P u j = Op (Store sc' rm') r' y"
      show "gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r'"
      proof (cases "u = t \<and> j = k")
        case True
        then show ?thesis using c a(3) by simp
      next
        case False
        then have jk: "j < kd S P s u" using a(2) s'(5) k(1) by (cases "u = t") (auto simp: less_Suc_eq)
        then have o: "gv g (Acc u j False) = tregs (src_code P u) (reads_val (gv g) u) j r'"
          using ev_parts(3)[OF ei] a by blast
        have "tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j"
          using rv rvo jk k(1) by (cases "u = t") auto
        moreover have "Acc u j False \<noteq> we" "Acc u j False \<noteq> re" using False by (auto simp: we_def re_def)
        ultimately show ?thesis using o by (simp add: g'f)
      qed
    qed
    have e4: "\<forall>u j. acc P u j True \<longrightarrow> j < kd S P s' u \<longrightarrow> gv g' (Acc u j True) = gv g' (Acc u j False) + 1"
    proof (intro allI impI)
      fix u j assume a: "acc P u j True" "j < kd S P s' u"
      show "gv g' (Acc u j True) = gv g' (Acc u j False) + 1"
      proof (cases "u = t \<and> j = k")
        case True
        then show ?thesis by (simp add: g'f we_def re_def)
      next
        case False
        then have jk: "j < kd S P s u" using a(2) s'(5) k(1) by (cases "u = t") (auto simp: less_Suc_eq)
        then have "gv g (Acc u j True) = gv g (Acc u j False) + 1" using ev_parts(4)[OF ei] a by blast
        moreover have "Acc u j False \<noteq> we" "Acc u j False \<noteq> re" "Acc u j True \<noteq> we" "Acc u j True \<noteq> re"
          using False by (auto simp: we_def re_def)
        ultimately show ?thesis by (simp add: g'f)
      qed
    qed
    have e5: "\<forall>u \<in> src_threads P. regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
    proof
      fix u assume u: "u \<in> src_threads P"
      have o: "regs s u = tregs (src_code P u) (reads_val (gv g) u) (kd S P s u)"
        using ev_parts(5)[OF ei] u by blast
      show "regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
      proof (cases "u = t")
        case True
        have "reads_val (gv g') t k = v" by (simp add: reads_val_def g'f re_def we_def)
        then show ?thesis using True rv[of k t] regt s'(4,5) k c by (simp add: ins_def)
      next
        case False
        then show ?thesis using rvo[OF False] o s'(4,5) by simp
      qed
    qed
    have e6: "\<forall>u. u \<notin> src_threads P \<longrightarrow> regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0"
      by (rule ev_others[OF ei t _ s'(6)]) (simp add: s'(4))
    show ?thesis unfolding ev_inv_def using e1 e2 e3 e4 e5 e6 by blast
  qed
  ultimately show ?thesis by (simp add: ginv_def g'_def we_def re_def T_def)
qed

text \<open>An increment at the L2: its read event reads from the write h its
  device's line holds, its write event is performed into that line, where
  it has reached the L2 at once.\<close>
lemma incl2_inv:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and k: "k = kd S P s t" "k < length (src_code P t)"
    and c: "ins P t k = Op (FetchInc sc rm) r x" and h: "v = gv g h" "wx S P s x h" and w: "d = dev_of L (wg_of L t)"
    and s': "l1 s' = l1 s" "l2 s' = (l2 s)(d := (l2 s d)(x := Some (v + 1, Dirty, Valid)))" "mem s' = mem s"
      "regs s' = (regs s)(t := (regs s t)(r := v))"
      "kd S P s' = (kd S P s)(t := Suc k)" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
  shows "ginv L S P s' (g\<lparr>gv := (gv g)(Acc t k False := v, Acc t k True := v + 1),
     grf := (grf g)(Acc t k False := h), gt := (gt g)(Acc t k True := Suc (clk g)),
     ga2 := (ga2 g)(Acc t k True := Some (Suc (clk g))), ga3 := (ga3 g)(Acc t k True := None),
     h2 := (h2 g)(d := (h2 g d)(x := Acc t k True)), clk := Suc (Suc (clk g))\<rparr>)"
proof -
  define we where "we = Acc t k True"
  define re where "re = Acc t k False"
  define T where "T = Suc (clk g)"
  define g' where "g' = g\<lparr>gv := (gv g)(re := v, we := v + 1), grf := (grf g)(re := h), gt := (gt g)(we := T),
     ga2 := (ga2 g)(we := Some T), ga3 := (ga3 g)(we := None), h2 := (h2 g)(d := (h2 g d)(x := we)), clk := Suc T\<rparr>"
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have acc_we: "acc P t k True" using t k c by (simp add: acc_def)
  have acc_re: "acc P t k False" using t k c by (simp add: acc_def)
  have wr_we: "is_wr P we" "sloc P we = Some x" using acc_we c by (simp_all add: we_def)
  have rd_re: "is_rd P re" "\<not> is_wr P re" "sloc P re = Some x" using acc_re c by (simp_all add: re_def)
  have nd: "\<not> done_ev S P s we" "\<not> done_ev S P s re" using k(1) by (simp_all add: we_def re_def)
  have de: "done_ev S P s' e \<longleftrightarrow> done_ev S P s e \<or> (\<exists>p. e = Acc t k p)" for e
    using done_Suc[of S P s' s t] s'(5) k(1) by simp
  have wxs: "wx S P s' y e \<longleftrightarrow> wx S P s y e \<or> (e = we \<and> y = x)" for y e
  proof
    assume a: "wx S P s' y e"
    show "wx S P s y e \<or> (e = we \<and> y = x)"
    proof (cases "\<exists>p. e = Acc t k p")
      case True
      then have "e = we" using a c by (auto simp: wx_def we_def)
      moreover have "y = x" using wx_loc[OF a] wr_we(2) \<open>e = we\<close> by simp
      ultimately show ?thesis by blast
    next
      case False
      then show ?thesis using a de[of e] by (auto simp: wx_def)
    qed
  next
    assume "wx S P s y e \<or> (e = we \<and> y = x)"
    then show "wx S P s' y e" using de[of e] wr_we by (auto simp: wx_def we_def)
  qed
  have nwe: "e \<noteq> we" if "wx S P s y e" for y e
  proof
    assume "e = we"
    then show False using that nd by (simp add: wx_def we_def)
  qed
  have nre: "e \<noteq> re" if "wx S P s y e" for y e
  proof
    assume "e = re"
    then show False using that nd by (simp add: wx_def re_def)
  qed
  have g'f: "gv g' = (gv g)(re := v, we := v + 1)" "gt g' = (gt g)(we := T)" "ga2 g' = (ga2 g)(we := Some T)"
      "ga3 g' = (ga3 g)(we := None)" "h1 g' = h1 g" "h2 g' = (h2 g)(d := (h2 g d)(x := we))" "hm g' = hm g"
      "clk g' = Suc T" "grf g' = (grf g)(re := h)"
    by (simp_all add: g'_def)
  have old: "gv g' e = gv g e" "gt g' e = gt g e" "ga2 g' e = ga2 g e" "ga3 g' e = ga3 g e" "key g' e = key g e"
    if "wx S P s y e" for y e
    using nwe[OF that] nre[OF that] by (simp_all add: g'f key_def)
  have tp: "gt g e < clk g" if "wx S P s y e" "\<forall>z. e \<noteq> Init z" for y e
    using time_perf[OF ti that] by auto
  have tpa: "the (ga2 g e) < clk g" if "wx S P s y e" "\<forall>z. e \<noteq> Init z" "ga2 g e \<noteq> None" for y e
    using time_perf[OF ti that(1,2)] that(3) by auto
  have p2': "pend2 L S P s' g' d' y = pend2 L S P s g d' y \<union> (if d' = d \<and> y = x then {we} else {})" for d' y
  proof (intro set_eqI iffI)
    fix e assume e: "e \<in> pend2 L S P s' g' d' y"
    show "e \<in> pend2 L S P s g d' y \<union> (if d' = d \<and> y = x then {we} else {})"
    proof (cases "e = we")
      case True
      have "wx S P s' y we" "map_option (dev_of L) (ewg L we) = Some d'" using e True by (simp_all add: pend2_def)
      then have "y = x" "d' = d" using wxs[of y we] nwe[of y we] w by (auto simp: we_def)
      then show ?thesis using True by simp
    next
      case False
      then show ?thesis using e by (auto simp: pend2_def wxs g'f)
    qed
  next
    fix e assume e: "e \<in> pend2 L S P s g d' y \<union> (if d' = d \<and> y = x then {we} else {})"
    show "e \<in> pend2 L S P s' g' d' y"
    proof (cases "e \<in> pend2 L S P s g d' y")
      case True
      then have "wx S P s y e" by (simp add: pend2_def)
      then show ?thesis using True old[of y e] by (simp add: pend2_def wxs)
    next
      case False
      then have "e = we" "d' = d" "y = x" using e by (auto split: if_splits)
      then show ?thesis using wr_we w by (simp add: pend2_def wxs g'f we_def)
    qed
  qed
  have p1': "pend1 L S P s' g' = pend1 L S P s g"
  proof (intro ext set_eqI)
    fix w' y e
    show "e \<in> pend1 L S P s' g' w' y \<longleftrightarrow> e \<in> pend1 L S P s g w' y"
    proof (cases "e = we")
      case True
      then show ?thesis using nwe by (auto simp: pend1_def g'f)
    next
      case False
      then show ?thesis by (simp add: pend1_def wxs g'f)
    qed
  qed
  have "line1 S P s' g' w' y" "line2 S P s' g' d y" "cell S P s' g' y" for w' d y
  proof -
    have o: "line1 S P s g w' y" "line2 S P s g d y" "cell S P s g y" using li by (simp_all add: lines_inv_iff)
    show "line2 S P s' g' d y"
    proof (cases "d = dev_of L (wg_of L t) \<and> y = x")
      case True
      then show ?thesis using wxs[of x we] w by (simp add: line2_def s'(2) g'f)
    next
      case False
      then have e: "l2 s' d y = l2 s d y" "h2 g' d y = h2 g d y" using w by (auto simp: s'(2) g'f)
      show ?thesis
      proof (cases "l2 s d y = None")
        case True
        then show ?thesis using e by (simp add: line2_def)
      next
        case False
        then have a: "val_of (l2 s d y) = gv g (h2 g d y)" "wx S P s y (h2 g d y)" using o(2) by (simp_all add: line2_def)
        show ?thesis unfolding line2_def e using a old(1)[OF a(2)] wxs by simp
      qed
    qed
    show "line1 S P s' g' w' y"
    proof (cases "l1 s w' y = None")
      case True
      then show ?thesis by (simp add: line1_def s'(1))
    next
      case False
      then have a: "val_of (l1 s w' y) = gv g (h1 g w' y)" "wx S P s y (h1 g w' y)" using o(1) by (simp_all add: line1_def)
      show ?thesis unfolding line1_def s'(1) g'f(5) using a old(1)[OF a(2)] wxs by simp
    qed
    show "cell S P s' g' y"
    proof -
      have c: "mem s y = gv g (hm g y)" "wx S P s y (hm g y)" "ga3 g (hm g y) \<noteq> None"
        "\<forall>e. wx S P s y e \<and> ga3 g e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g e) (key g (hm g y))"
        using o(3) by (simp_all add: cell_def)
      have "\<forall>e. wx S P s' y e \<and> ga3 g' e \<noteq> None \<longrightarrow> e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
      proof (intro allI impI)
        fix e assume e: "wx S P s' y e \<and> ga3 g' e \<noteq> None"
        then have "e \<noteq> we" by (auto simp: g'f)
        then have e2: "wx S P s y e" using e wxs by blast
        then have "ga3 g e \<noteq> None" using e old by simp
        then show "e = hm g y \<or> klt (key g' e) (key g' (hm g y))"
          using c(4) e2 old[OF e2] old[OF c(2)] by simp
      qed
      then show ?thesis using c old[OF c(2)] wxs unfolding cell_def s'(3) g'f(7) by simp
    qed
  qed
  then have "lines_inv S P s' g'" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g'"
    unfolding dirty_inv_iff
  proof (intro conjI allI)
    fix w' y
    have o: "dirty1 L S P s g w' y" using di by (simp add: dirty_inv_iff)
    have e: "e \<in> pend1 L S P s g w' y \<Longrightarrow> gt g' e = gt g e" for e
      using old by (auto simp: pend1_def)
    have "dirty (l1 s w' y) \<Longrightarrow> h1 g w' y \<in> pend1 L S P s g w' y" using o by (simp add: dirty1_def)
    then show "dirty1 L S P s' g' w' y" using o e unfolding dirty1_def p1' s'(1) g'f(5) by auto
  next
    fix d' y
    have o: "dirty2 L S P s g d' y" using di by (simp add: dirty_inv_iff)
    show "dirty2 L S P s' g' d' y"
    proof (cases "d' = d \<and> y = x")
      case True
      have "the (ga2 g' e) < the (ga2 g' we)" if "e \<in> pend2 L S P s g d x" for e
      proof -
        have a: "wx S P s x e" "\<forall>z. e \<noteq> Init z" "ga2 g e \<noteq> None" using pend2_D[OF that] by auto
        have "ga2 g' e = ga2 g e" using old(3)[OF a(1)] .
        moreover have "the (ga2 g e) < clk g" using tpa[OF a] .
        moreover have "ga2 g' we = Some (Suc (clk g))" by (simp add: g'f T_def)
        ultimately show ?thesis by simp
      qed
      moreover have "we \<in> pend2 L S P s' g' d x" using p2' by simp
      ultimately show ?thesis using True by (auto simp: dirty2_def p2' s'(2) dirty_def g'f)
    next
      case False
      then have "l2 s' d' y = l2 s d' y" "h2 g' d' y = h2 g d' y" "pend2 L S P s' g' d' y = pend2 L S P s g d' y"
        by (auto simp: s'(2) g'f p2')
      moreover have "e \<in> pend2 L S P s g d' y \<Longrightarrow> gt g' e = gt g e \<and> ga2 g' e = ga2 g e" for e
        using old by (auto simp: pend2_def)
      moreover have "dirty (l2 s d' y) \<Longrightarrow> gt g' (h2 g d' y) = gt g (h2 g d' y) \<and> ga2 g' (h2 g d' y) = ga2 g (h2 g d' y)"
        using o old by (auto simp: dirty2_def pend2_def)
      ultimately show ?thesis using o unfolding dirty2_def by auto
    qed
  qed
  moreover have "time_inv S P s' g'"
  proof -
    have t1: "\<forall>x. gt g' (Init x) = 0 \<and> ga2 g' (Init x) = Some 0 \<and> ga3 g' (Init x) = Some 0"
      using ti by (simp add: time_inv_def g'f we_def)
    have t2: "0 < gt g' e \<and> gt g' e < clk g' \<and> (\<forall>n. ga2 g' e = Some n \<longrightarrow> n < clk g')
      \<and> (\<forall>n. ga3 g' e = Some n \<longrightarrow> n < clk g') \<and> (ga2 g' e = None \<longrightarrow> ga3 g' e = None)"
      if e: "is_wr P e" "done_ev S P s' e" "\<forall>x. e \<noteq> Init x" for e
    proof (cases "e = we")
      case True
      then show ?thesis by (simp add: g'f T_def)
    next
      case False
      obtain y where y: "sloc P e = Some y" using wr_loc[OF e(1)] by blast
      have "wx S P s' y e" using e y by (simp add: wx_def)
      then have wxe: "wx S P s y e" using False wxs by blast
      show ?thesis using time_perf[OF ti wxe e(3)] old[OF wxe] by (auto simp: g'f T_def)
    qed
    have t3: "e = e'" if tt: "is_wr P e" "done_ev S P s' e" "is_wr P e'" "done_ev S P s' e'" "gt g' e = gt g' e'"
        "\<forall>x. e \<noteq> Init x" "\<forall>x. e' \<noteq> Init x" for e e'
    proof -
      obtain y where y: "sloc P e = Some y" using wr_loc[OF tt(1)] by blast
      obtain y' where y': "sloc P e' = Some y'" using wr_loc[OF tt(3)] by blast
      have a: "wx S P s' y e" "wx S P s' y' e'" using tt y y' by (simp_all add: wx_def)
      show ?thesis
      proof (cases "e = we \<or> e' = we")
        case True
        then show ?thesis
        proof
          assume ew: "e = we"
          show ?thesis
          proof (rule ccontr)
            assume "e \<noteq> e'"
            then have "wx S P s y' e'" using a(2) wxs ew by blast
            then show False using tp[of y' e'] tt(7) old tt(5) ew by (simp add: g'f T_def)
          qed
        next
          assume ew: "e' = we"
          show ?thesis
          proof (rule ccontr)
            assume "e \<noteq> e'"
            then have "wx S P s y e" using a(1) wxs ew by blast
            then show False using tp[of y e] tt(6) old tt(5) ew by (simp add: g'f T_def)
          qed
        qed
      next
        case False
        then have "wx S P s y e" "wx S P s y' e'" using a wxs by blast+
        then show ?thesis
          by (rule time_inj[OF ti _ _ tt(6) tt(7)]) (use tt(5) False in \<open>simp add: g'f\<close>)
      qed
    qed
    show ?thesis unfolding time_inv_def using t1 t2 t3 by blast
  qed
  moreover have "ev_inv S P s' g'"
  proof -
    have e1: "\<forall>x. gv g' (Init x) = src_init P x" using ev_parts(1)[OF ei] by (simp add: g'f we_def re_def)
    have e2: "\<forall>r. is_rd P r \<and> done_ev S P s' r \<longrightarrow> gv g' r = gv g' (grf g' r) \<and> is_wr P (grf g' r)
        \<and> sloc P (grf g' r) = sloc P r \<and> done_ev S P s' (grf g' r)"
    proof (intro allI impI)
      fix q assume q: "is_rd P q \<and> done_ev S P s' q"
      show "gv g' q = gv g' (grf g' q) \<and> is_wr P (grf g' q) \<and> sloc P (grf g' q) = sloc P q \<and> done_ev S P s' (grf g' q)"
      proof (cases "q = re")
        case True
        have hx: "x \<in> src_locs P" using ev_loc'[OF acc_re] c by simp
        have "is_wr P h" using wx_Init_wr[OF h(2) hx] .
        moreover have "sloc P h = Some x" using wx_loc[OF h(2)] .
        moreover have "done_ev S P s h" using h(2) by (cases h) (auto simp: wx_def)
        moreover have "gv g' h = gv g h" using old(1)[OF h(2)] .
        ultimately show ?thesis using True h(1) de[of h] rd_re(3) by (simp add: g'f re_def we_def)
      next
        case False
        have "q \<noteq> we" using q rd_not_wr wr_we by auto
        then have "done_ev S P s q" using q de[of q] False by (auto simp: re_def we_def)
        then have o: "gv g q = gv g (grf g q) \<and> is_wr P (grf g q) \<and> sloc P (grf g q) = sloc P q \<and> done_ev S P s (grf g q)"
          using ev_parts(2)[OF ei] q by blast
        then have "grf g q \<noteq> we" "grf g q \<noteq> re" using nd by auto
        then show ?thesis using o de[of "grf g q"] False \<open>q \<noteq> we\<close> by (simp add: g'f)
      qed
    qed
    have rv: "j \<le> k \<Longrightarrow> tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j" for u j
      by (rule tregs_cong) (auto simp: reads_val_def g'f we_def re_def)
    have rvo: "u \<noteq> t \<Longrightarrow> tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j" for u j
      by (rule tregs_cong) (auto simp: reads_val_def g'f we_def re_def)
    have regt: "regs s t = tregs (src_code P t) (reads_val (gv g) t) k"
      using ev_parts(5)[OF ei] t k(1) by blast
    have e3: "\<forall>u j r x sc rm. acc P u j False \<longrightarrow> j < kd S P s' u \<longrightarrow> ins P u j = Op (Store sc rm) r x
        \<longrightarrow> gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r"
    proof (intro allI impI)
      fix u j r' y sc' rm' assume a: "acc P u j False" "j < kd S P s' u" "ins P u j = Op (Store sc' rm') r' y"
      show "gv g' (Acc u j False) = tregs (src_code P u) (reads_val (gv g') u) j r'"
      proof (cases "u = t \<and> j = k")
        case True
        then show ?thesis using c a(3) by simp
      next
        case False
        then have jk: "j < kd S P s u" using a(2) s'(5) k(1) by (cases "u = t") (auto simp: less_Suc_eq)
        then have o: "gv g (Acc u j False) = tregs (src_code P u) (reads_val (gv g) u) j r'"
          using ev_parts(3)[OF ei] a by blast
        have "tregs (src_code P u) (reads_val (gv g') u) j = tregs (src_code P u) (reads_val (gv g) u) j"
          using rv rvo jk k(1) by (cases "u = t") auto
        moreover have "Acc u j False \<noteq> we" "Acc u j False \<noteq> re" using False by (auto simp: we_def re_def)
        ultimately show ?thesis using o by (simp add: g'f)
      qed
    qed
    have e4: "\<forall>u j. acc P u j True \<longrightarrow> j < kd S P s' u \<longrightarrow> gv g' (Acc u j True) = gv g' (Acc u j False) + 1"
    proof (intro allI impI)
      fix u j assume a: "acc P u j True" "j < kd S P s' u"
      show "gv g' (Acc u j True) = gv g' (Acc u j False) + 1"
      proof (cases "u = t \<and> j = k")
        case True
        then show ?thesis by (simp add: g'f we_def re_def)
      next
        case False
        then have jk: "j < kd S P s u" using a(2) s'(5) k(1) by (cases "u = t") (auto simp: less_Suc_eq)
        then have "gv g (Acc u j True) = gv g (Acc u j False) + 1" using ev_parts(4)[OF ei] a by blast
        moreover have "Acc u j False \<noteq> we" "Acc u j False \<noteq> re" "Acc u j True \<noteq> we" "Acc u j True \<noteq> re"
          using False by (auto simp: we_def re_def)
        ultimately show ?thesis by (simp add: g'f)
      qed
    qed
    have e5: "\<forall>u \<in> src_threads P. regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
    proof
      fix u assume u: "u \<in> src_threads P"
      have o: "regs s u = tregs (src_code P u) (reads_val (gv g) u) (kd S P s u)"
        using ev_parts(5)[OF ei] u by blast
      show "regs s' u = tregs (src_code P u) (reads_val (gv g') u) (kd S P s' u)"
      proof (cases "u = t")
        case True
        have "reads_val (gv g') t k = v" by (simp add: reads_val_def g'f re_def we_def)
        then show ?thesis using True rv[of k t] regt s'(4,5) k c by (simp add: ins_def)
      next
        case False
        then show ?thesis using rvo[OF False] o s'(4,5) by simp
      qed
    qed
    have e6: "\<forall>u. u \<notin> src_threads P \<longrightarrow> regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0"
      by (rule ev_others[OF ei t _ s'(6)]) (simp add: s'(4))
    show ?thesis unfolding ev_inv_def using e1 e2 e3 e4 e5 e6 by blast
  qed
  ultimately show ?thesis by (simp add: ginv_def g'_def we_def re_def T_def)
qed


text \<open>Flushes, invalidations and locks: a line keeps its value and its
  hygiene, and is present as before.\<close>
lemma dirty_invalidate [simp]: "dirty (invalidate e) = dirty e"
  by (cases e) (auto simp: invalidate_def dirty_def split: prod.splits)

lemma none_invalidate [simp]: "(invalidate e = None) = (e = None)"
  by (cases e) (auto simp: invalidate_def split: prod.splits)

lemma quiet_lines:
  assumes "exec L t i s = Some z" "quiet i"
  shows "mem z = mem s \<and> regs z = regs s \<and> pc z = pc s
    \<and> (\<forall>w x. (l1 z w x = None \<longleftrightarrow> l1 s w x = None) \<and> val_of (l1 z w x) = val_of (l1 s w x) \<and> (dirty (l1 z w x) \<longleftrightarrow> dirty (l1 s w x)))
    \<and> (\<forall>d x. (l2 z d x = None \<longleftrightarrow> l2 s d x = None) \<and> val_of (l2 z d x) = val_of (l2 s d x) \<and> (dirty (l2 z d x) \<longleftrightarrow> dirty (l2 s d x)))"
  using assms by (cases i) (auto simp: Let_def split: if_splits)

lemma quiet_inv:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P"
    and s': "mem s' = mem s" "regs s' = regs s" "kd S P s' = kd S P s" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
      "\<forall>w x. (l1 s' w x = None \<longleftrightarrow> l1 s w x = None) \<and> val_of (l1 s' w x) = val_of (l1 s w x) \<and> (dirty (l1 s' w x) \<longleftrightarrow> dirty (l1 s w x))"
      "\<forall>d x. (l2 s' d x = None \<longleftrightarrow> l2 s d x = None) \<and> val_of (l2 s' d x) = val_of (l2 s d x) \<and> (dirty (l2 s' d x) \<longleftrightarrow> dirty (l2 s d x))"
  shows "ginv L S P s' g"
proof -
  have li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have dn: "done_ev S P s' = done_ev S P s" using done_kd[OF s'(3)] .
  have wxs: "wx S P s' = wx S P s" by (simp add: wx_def[abs_def] dn)
  have pe: "pend1 L S P s' = pend1 L S P s" "pend2 L S P s' = pend2 L S P s"
    by (simp_all add: pend1_def[abs_def] pend2_def[abs_def] wxs)
  have "line1 S P s' g w y" "line2 S P s' g d y" "cell S P s' g y" for w d y
    using li s'(1,5,6) by (simp_all add: lines_inv_iff line1_def line2_def cell_def wxs)
  then have "lines_inv S P s' g" by (simp add: lines_inv_iff)
  moreover have "dirty_inv L S P s' g"
    using di s'(5,6) by (simp add: dirty_inv_def pe)
  moreover have "time_inv S P s' g"
    using ti unfolding time_inv_def dn .
  moreover have "ev_inv S P s' g"
  proof -
    have "\<forall>u. u \<notin> src_threads P \<longrightarrow> regs s' u = (\<lambda>_. 0) \<and> pc s' u = 0"
      using ev_parts(6)[OF ei] s'(2,4) t by auto
    then show ?thesis using ei unfolding ev_inv_def dn s'(2,3) by blast
  qed
  ultimately show ?thesis by (simp add: ginv_def)
qed

text \<open>What a thread step does to the ghost's times: every event performed
  before keeps its times; a write it performs is performed after every time
  given so far, has not reached memory, and has reached its L2 only if the
  step is an increment at the L2 (at once).\<close>
definition gstep :: "src_program \<Rightarrow> (sev \<Rightarrow> bool) \<Rightarrow> (sev \<Rightarrow> bool) \<Rightarrow> instr \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "gstep P dn dn' i g g' \<longleftrightarrow> clk g \<le> clk g'
     \<and> (\<forall>e. dn e \<longrightarrow> gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e)
     \<and> (\<forall>e. is_wr P e \<and> dn' e \<and> \<not> dn e \<longrightarrow> clk g < gt g' e \<and> gt g' e < clk g' \<and> ga3 g' e = None
          \<and> ((ga2 g' e = None \<and> (\<exists>y v r. sloc P e = Some y \<and> (i = ST v y \<or> i = INCL1 r y)))
             \<or> (ga2 g' e = Some (gt g' e) \<and> (\<exists>r x. i = INCL2 r x))))"

text \<open>What a thread step does to the lines' and reads' writes: a store or an
  increment in the L1 puts its write in its work-group's line, an increment
  at the L2 in its device's; a read reads from the write its line held.\<close>
definition gview :: "layout \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> instr \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "gview L t k i g g' \<longleftrightarrow>
     h1 g' = (case i of ST v x \<Rightarrow> (h1 g)(wg_of L t := (h1 g (wg_of L t))(x := Acc t k False))
       | INCL1 r x \<Rightarrow> (h1 g)(wg_of L t := (h1 g (wg_of L t))(x := Acc t k True)) | _ \<Rightarrow> h1 g)
   \<and> h2 g' = (case i of INCL2 r x \<Rightarrow> (h2 g)(dev_of L (wg_of L t) := (h2 g (dev_of L (wg_of L t)))(x := Acc t k True))
       | _ \<Rightarrow> h2 g)
   \<and> grf g' = (case i of LD r x \<Rightarrow> (grf g)(Acc t k False := h1 g (wg_of L t) x)
       | INCL1 r x \<Rightarrow> (grf g)(Acc t k False := h1 g (wg_of L t) x)
       | INCL2 r x \<Rightarrow> (grf g)(Acc t k False := h2 g (dev_of L (wg_of L t)) x) | _ \<Rightarrow> grf g)
   \<and> hm g' = hm g"

lemma gview_quiet: "quiet i \<Longrightarrow> gview L t k i g g'
    \<longleftrightarrow> h1 g' = h1 g \<and> h2 g' = h2 g \<and> grf g' = grf g \<and> hm g' = hm g"
  by (cases i) (simp_all add: gview_def)

lemma new_ev: "kd S P s' = (kd S P s)(t := Suc k) \<Longrightarrow> k = kd S P s t \<Longrightarrow> done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e
    \<Longrightarrow> \<exists>p. e = Acc t k p"
  by (cases e) (auto split: if_splits)

lemma new_wr: "kd S P s' = (kd S P s)(t := Suc k) \<Longrightarrow> k = kd S P s t \<Longrightarrow> done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e
    \<Longrightarrow> is_wr P e \<Longrightarrow> e = Acc t k (wr (ins P t k) True) \<and> \<not> done_ev S P s (Acc t k p)"
proof -
  assume a: "kd S P s' = (kd S P s)(t := Suc k)" "k = kd S P s t" "done_ev S P s' e" "\<not> done_ev S P s e" "is_wr P e"
  obtain q where e: "e = Acc t k q" using new_ev[OF a(1-4)] by blast
  then have "wr (ins P t k) q" using a(5) by (simp add: acc_def)
  then have "q = wr (ins P t k) True" by (cases "(ins P t k, q)" rule: wr.cases) auto
  then show ?thesis using e a(2) by simp
qed

text \<open>Every step of a thread keeps the invariant, with the ghost updated.\<close>
text \<open>A step of a thread running compiled code: the instruction at its pc,
  visible or quiet, on a state z that keeps the pcs; the thread's pc moves
  on by one, and the count of its performed source instructions by one
  where the instruction is visible.\<close>
lemma step_shape:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
  obtains z where "pc s t < length (instrs (compile S P) t)"
    "exec L t (instrs (compile S P) t ! pc s t) s = Some z" "\<not> unflushed L s t"
    "visible (instrs (compile S P) t ! pc s t) \<or> quiet (instrs (compile S P) t ! pc s t)"
    "s' = set_pc t (Suc (pc s t)) z" "pc z = pc s"
    "kd S P s' t = (if visible (instrs (compile S P) t ! pc s t) then Suc (kd S P s t) else kd S P s t)"
    "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
proof -
  define xs where "xs = instrs (compile S P) t"
  define n where "n = pc s t"
  define i where "i = xs ! n"
  have tt: "t \<in> src_threads P" using st by (simp add: step_thread_def compile_def split: if_splits)
  have xs: "xs = concat (map (compile_instr S) (src_code P t))"
    by (simp add: xs_def compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
    using rows(3) tt by (auto simp: ops_of_def)
  obtain z where nl: "n < length xs" and z: "exec L t i s = Some z" "s' = set_pc t (next_pc t i s) z"
    and nu: "\<not> unflushed L s t"
    using st by (auto simp: step_thread_def xs_def n_def i_def compile_def Let_def split: if_splits)
  have vq: "visible i \<or> quiet i"
    using compiled_code(2)[OF rows(1,2) ops] nl by (simp add: i_def xs[symmetric])
  then have nxt: "next_pc t i s = Suc n"
    by (cases i) (auto simp: next_pc_def n_def)
  have pcz: "pc z = pc s"
    using z(1) by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)
  have pc': "pc s' = (pc s)(t := Suc n)" using z(2) nxt pcz by (simp add: set_pc_def)
  have "kd S P s' t = (if visible i then Suc (kd S P s t) else kd S P s t)"
    using filter_take_Suc[OF nl, of visible] pc' by (simp add: kd_def xs_def n_def i_def)
  moreover have "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u" using pc' by (simp add: kd_def)
  ultimately show ?thesis using that nl z nu vq nxt pcz unfolding xs_def n_def i_def by simp
qed

lemma ginv_thread_ghost:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P" and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
  shows "\<exists>g'. ginv L S P s' g' \<and> gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'
    \<and> gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
proof -
  define xs where "xs = instrs (compile S P) t"
  define n where "n = pc s t"
  define i where "i = xs ! n"
  have xs: "xs = concat (map (compile_instr S) (src_code P t))"
    by (simp add: xs_def compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
    using rows(3) t by (auto simp: ops_of_def)
  define k where "k = kd S P s t"
  obtain z where n: "n < length xs" and z: "exec L t i s = Some z" "s' = set_pc t (Suc n) z"
    and vq: "visible i \<or> quiet i" and pcz: "pc z = pc s" and kt: "kd S P s' t = (if visible i then Suc k else k)"
    and kdo0: "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows]) (simp_all add: xs_def n_def i_def k_def)
  have kdo: "kd S P s' u = kd S P s u" if "u \<noteq> t" for u using kdo0 that by blast
  have s'f: "l1 s' = l1 z" "l2 s' = l2 z" "mem s' = mem z" "regs s' = regs z" "pc s' = (pc s)(t := Suc n)"
    using z(2) pcz by (simp_all add: set_pc_def n_def)
  have pco: "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u" using s'f(5) by simp
  show ?thesis
  proof (cases "visible i")
    case False
    then have q: "quiet i" using vq by simp
    have "kd S P s' u = kd S P s u" for u using kdo kt False by (cases "u = t") (auto simp: k_def)
    then have kq: "kd S P s' = kd S P s" by blast
    then have "ginv L S P s' g"
      using quiet_inv[OF inv t] quiet_lines[OF z(1) q] s'f pco by (metis (no_types, lifting))
    moreover have "gview L t (kd S P s t) i g g" using gview_quiet[OF q] by simp
    ultimately show ?thesis using done_kd[OF kq] by (auto simp: gstep_def i_def xs_def n_def)
  next
    case True
    have kd': "kd S P s' = (kd S P s)(t := Suc k)" using kdo kt True by auto
    have k: "k < length (src_code P t)" and ik: "i = src_access B (src_code P t ! k)"
      using filter_take_nth[OF n, of visible] True compiled_code(1)[OF rows(1,2) ops]
      by (simp_all add: k_def kd_def i_def xs[symmetric] n_def xs_def)
    have ins: "ins P t k = src_code P t ! k" by (simp add: ins_def)
    have li: "lines_inv S P s g" using inv by (simp add: ginv_def)
    show ?thesis
    proof (cases "src_code P t ! k")
      case (SetReg r v)
      have "z = set_reg t r v s" using z(1) ik SetReg by simp
      then have "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s" "regs s' = (regs s)(t := (regs s t)(r := v))"
        using s'f by (simp_all add: set_reg_def)
      then have "ginv L S P s' g" using mov_inv[OF inv t k_def k] SetReg ins kd' pco by auto
      moreover have "gview L t (kd S P s t) i g g" using ik SetReg by (simp add: gview_def)
      ultimately show ?thesis using new_ev[OF kd' k_def] SetReg ins by (force simp: gstep_def i_def xs_def n_def)
    next
      case (Op a r x)
      have c_in: "src_code P t ! k \<in> set (src_code P t)" using k by simp
      have aAB: "a \<in> A \<union> B" using ops c_in Op by (auto simp: op_of_def)
      show ?thesis
      proof (cases "a \<in> B")
        case True
        obtain sc rm where a: "a = FetchInc sc rm"
        proof (cases a)
          case (FetchInc sc rm)
          then show ?thesis using that by simp
        qed (use rows(2) True in \<open>auto simp: l2_rows_def l2_row_def\<close>)
        define d where "d = dev_of L (wg_of L t)"
        have i: "i = INCL2 r x" using ik Op True by simp
        then have rd: "readable (l2 s d x)" using z(1) by (auto simp: Let_def d_def split: if_splits)
        define v where "v = val_of (l2 s d x)"
        have zz: "z = enq_l2 d (Addr x) (set_l2 d x (Some (v + 1, Dirty, Valid)) (set_reg t r v s))"
          using z(1) i rd by (simp add: Let_def v_def d_def)
        have sf: "l1 s' = l1 s" "l2 s' = (l2 s)(d := (l2 s d)(x := Some (v + 1, Dirty, Valid)))" "mem s' = mem s"
            "regs s' = (regs s)(t := (regs s t)(r := v))"
          using s'f zz by (simp_all add: enq_l2_def set_l2_def set_reg_def)
        have "line2 S P s g d x" using li by (simp add: lines_inv_iff)
        then have h: "v = gv g (h2 g d x)" "wx S P s x (h2 g d x)"
          using rd by (auto simp: line2_def v_def readable_def split: option.splits)
        have c: "ins P t k = Op (FetchInc sc rm) r x" using Op a ins by simp
        show ?thesis
          apply (rule exI, rule conjI, rule incl2_inv[OF inv t k_def k c h d_def sf kd' pco], rule conjI)
          subgoal using new_wr[OF kd' k_def] i[unfolded i_def xs_def n_def] c by (auto simp: gstep_def k_def)
          using i[unfolded i_def xs_def n_def] by (simp add: gview_def k_def d_def)
      next
        case notB: False
        have ia: "i = access a r x" using ik Op notB by simp
        define w where "w = wg_of L t"
        have "line1 S P s g w x" using li by (simp add: lines_inv_iff)
        then have l1v: "l1 s w x \<noteq> None \<Longrightarrow> val_of (l1 s w x) = gv g (h1 g w x) \<and> wx S P s x (h1 g w x)"
          by (simp add: line1_def)
        show ?thesis
        proof (cases a)
          case (Load sc rm)
          have i: "i = LD r x" using ia Load by (simp add: access_def)
          then have rd: "readable (l1 s w x)" and zz: "z = set_reg t r (val_of (l1 s w x)) s"
            using z(1) by (auto simp: Let_def w_def split: if_splits)
          have sf: "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s" "regs s' = (regs s)(t := (regs s t)(r := val_of (l1 s w x)))"
            using s'f zz by (simp_all add: set_reg_def)
          have h: "val_of (l1 s w x) = gv g (h1 g w x)" "wx S P s x (h1 g w x)"
            using l1v rd by (auto simp: readable_def split: option.splits)
          have c: "ins P t k = Op (Load sc rm) r x" using Op Load ins by simp
          show ?thesis
            apply (rule exI, rule conjI, rule ld_inv[OF inv t k_def k c h sf kd' pco], rule conjI)
            subgoal using new_ev[OF kd' k_def] c by (force simp: gstep_def)
            using i[unfolded i_def xs_def n_def] by (simp add: gview_def k_def w_def)
        next
          case (Store sc rm)
          have i: "i = ST (ER r) x" using ia Store by (simp add: access_def)
          then have zz: "z = enq_l1 w (Addr x) (set_l1 w x (Some (regs s t r, Dirty, Valid)) s)"
            using z(1) by (auto simp: Let_def w_def split: if_splits)
          have sf: "l1 s' = (l1 s)(w := (l1 s w)(x := Some (regs s t r, Dirty, Valid)))" "l2 s' = l2 s" "mem s' = mem s"
              "regs s' = regs s"
            using s'f zz by (simp_all add: enq_l1_def set_l1_def)
          have c: "ins P t k = Op (Store sc rm) r x" using Op Store ins by simp
          show ?thesis
            apply (rule exI, rule conjI, rule st_inv[OF inv t k_def k c refl w_def sf kd' pco], rule conjI)
            subgoal using new_wr[OF kd' k_def] c i[unfolded i_def xs_def n_def] by (auto simp: gstep_def k_def) fastforce+
            using i[unfolded i_def xs_def n_def] by (simp add: gview_def k_def w_def)
        next
          case (FetchInc sc rm)
          have i: "i = INCL1 r x" using ia FetchInc by (simp add: access_def)
          then have rd: "readable (l1 s w x)" using z(1) by (auto simp: Let_def w_def split: if_splits)
          define v where "v = val_of (l1 s w x)"
          have zz: "z = enq_l1 w (Addr x) (set_l1 w x (Some (v + 1, Dirty, Valid)) (set_reg t r v s))"
            using z(1) i rd by (simp add: Let_def v_def w_def)
          have sf: "l1 s' = (l1 s)(w := (l1 s w)(x := Some (v + 1, Dirty, Valid)))" "l2 s' = l2 s" "mem s' = mem s"
              "regs s' = (regs s)(t := (regs s t)(r := v))"
            using s'f zz by (simp_all add: enq_l1_def set_l1_def set_reg_def)
          have h: "v = gv g (h1 g w x)" "wx S P s x (h1 g w x)"
            using l1v rd by (auto simp: readable_def v_def split: option.splits)
          have c: "ins P t k = Op (FetchInc sc rm) r x" using Op FetchInc ins by simp
          show ?thesis
            apply (rule exI, rule conjI, rule incl1_inv[OF inv t k_def k c h w_def sf kd' pco], rule conjI)
            subgoal using new_wr[OF kd' k_def] c i[unfolded i_def xs_def n_def] by (auto simp: gstep_def k_def) fastforce+
            using i[unfolded i_def xs_def n_def] by (simp add: gview_def k_def w_def)
        qed
      qed
    qed
  qed
qed


lemma ginv_thread:
  assumes "ginv L S P s g" "t \<in> src_threads P" "step_thread L (compile S P) t s = Some s'"
    "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
  shows "\<exists>g'. ginv L S P s' g'"
  using ginv_thread_ghost[OF assms] by blast

lemma ginv_reachable:
  assumes "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
  shows "\<exists>g. ginv L S P s g"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using assms(1) by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    then show ?case using ginv_initial by blast
  next
    case (step s1 s2)
    then obtain g where g: "ginv L S P s1 g" by blast
    have "threads (compile S P) = src_threads P" by (simp add: compile_def)
    then consider (thr) t where "t \<in> src_threads P" "step_thread L (compile S P) t s1 = Some s2"
      | (env) "s2 \<in> env_step L wb s1"
      using step.hyps(2) unfolding step_def by blast
    then show ?case
    proof cases
      case thr
      then show ?thesis using ginv_thread[OF g thr rows] by blast
    next
      case env
      then show ?thesis using ginv_env[OF g] by blast
    qed
  qed
qed

section \<open>The theorem: a final state is the outcome of a candidate\<close>

text \<open>The coherence order a run exhibits: the writes of each location by
  when they reached memory, then their L2, then by when they were performed.\<close>
definition run_co :: "src_program \<Rightarrow> ghost \<Rightarrow> sev rel" where
  "run_co P g = {(e, e'). is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<and> (\<forall>x. e' \<noteq> Init x)
     \<and> klt (key g e) (key g e')}"

lemma klt_zero: "\<not> klt a (0, 0, 0)"
  by (simp add: klt_def)

text \<open>At a final state every thread has performed its every event, and every
  write has reached memory.\<close>
lemma final_facts:
  assumes inv: "ginv L S P s g" and fin: "is_final L (compile S P) s" and wp: "well_placed L P"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
  shows "\<forall>t \<in> src_threads P. kd S P s t = length (src_code P t)"
    and "is_ev P e \<Longrightarrow> done_ev S P s e"
    and "is_wr P e \<Longrightarrow> sloc P e = Some x \<Longrightarrow> wx S P s x e \<and> ga3 g e \<noteq> None"
proof -
  show kd: "\<forall>t \<in> src_threads P. kd S P s t = length (src_code P t)"
  proof
    fix t assume t: "t \<in> src_threads P"
    have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
      using rows(3) t by (auto simp: ops_of_def)
    have "length (instrs (compile S P) t) \<le> pc s t"
      using fin t by (simp add: is_final_def compile_def)
    then have "take (pc s t) (instrs (compile S P) t) = instrs (compile S P) t" by simp
    then show "kd S P s t = length (src_code P t)"
      using compiled_code(1)[OF rows(1,2) ops] by (simp add: kd_def compile_def)
  qed
  show dn: "done_ev S P s e" if "is_ev P e" for e
    using that kd by (cases e) (auto simp: acc_def)
  assume w: "is_wr P e" "sloc P e = Some x"
  have wxe: "wx S P s x e"
  proof (cases e)
    case (Init y)
    then show ?thesis using w by (simp add: wx_def)
  next
    case (Acc t k p)
    then show ?thesis using w dn[of e] by (simp add: wx_def)
  qed
  have ti: "time_inv S P s g" and di: "dirty_inv L S P s g" using inv by (simp_all add: ginv_def)
  have "ga3 g e \<noteq> None"
  proof (cases e)
    case (Init y)
    then show ?thesis using ti by (simp add: time_inv_def)
  next
    case (Acc t k p)
    have tw: "t \<in> src_threads P" using w Acc by (simp add: acc_def)
    then have wg: "wg_of L t \<in> wgs L" and dv: "dev_of L (wg_of L t) \<in> devs L"
      using wp by (auto simp: well_placed_def)
    have "\<not> dirty (l1 s (wg_of L t) x)" using fin wg by (simp add: is_final_def)
    then have "pend1 L S P s g (wg_of L t) x = {}" using di by (simp add: dirty_inv_def)
    then have a2: "ga2 g e \<noteq> None" using wxe Acc by (auto simp: pend1_def)
    have "\<not> dirty (l2 s (dev_of L (wg_of L t)) x)" using fin dv by (simp add: is_final_def)
    then have "pend2 L S P s g (dev_of L (wg_of L t)) x = {}" using di by (simp add: dirty_inv_def)
    then show ?thesis using wxe Acc a2 by (auto simp: pend2_def)
  qed
  then show "wx S P s x e \<and> ga3 g e \<noteq> None" using wxe by simp
qed

text \<open>The candidate a final state exhibits, for the ghost the run carries.\<close>
lemma final_candidate:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and wp: "well_placed L P"
    and inv: "ginv L S P s g" and fin: "is_final L (compile S P) s"
  shows "cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)"
proof -
  have li: "lines_inv S P s g" and ti: "time_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  note ff = final_facts[OF inv fin wp rows]
  have ev_rd: "is_rd P r \<Longrightarrow> is_ev P r" for r by (cases r) auto
  have ev_wr: "is_wr P e \<Longrightarrow> is_ev P e" for e by (cases e) auto
  have rdv: "gv g r = gv g (grf g r) \<and> is_wr P (grf g r) \<and> sloc P (grf g r) = sloc P r" if "is_rd P r" for r
    using ev_parts(2)[OF ei] that ff(2)[OF ev_rd[OF that]] by blast
  \<comment> \<open>distinct writes of a location have distinct keys\<close>
  have kdiff: "key g e \<noteq> key g e'" if ka: "is_wr P e" "is_wr P e'" "sloc P e = sloc P e'" "e \<noteq> e'" for e e'
  proof
    assume eq: "key g e = key g e'"
    then have gteq: "gt g e = gt g e'" by (simp add: key_def)
    obtain x where x: "sloc P e = Some x" using wr_loc[OF ka(1)] by blast
    have we: "wx S P s x e" "wx S P s x e'" using ff(3)[OF ka(1) x] ff(3)[OF ka(2)] x ka(3) by auto
    show False
    proof (cases "\<exists>y. e = Init y")
      case True
      then obtain y where y: "e = Init y" by blast
      show False
      proof (cases "\<exists>z. e' = Init z")
        case True
        then show False using y x ka(3,4) by auto
      next
        case False
        then have "0 < gt g e'" using time_perf[OF ti we(2)] by auto
        then show False using gteq y ti by (simp add: time_inv_def)
      qed
    next
      case False
      show False
      proof (cases "\<exists>z. e' = Init z")
        case True
        then obtain z where z: "e' = Init z" by blast
        have "0 < gt g e" using time_perf[OF ti we(1)] False by auto
        then show False using gteq z ti by (simp add: time_inv_def)
      next
        case False': False
        then show False using time_inj[OF ti we(1) we(2)] False gteq ka(4) by blast
      qed
    qed
  qed
  have initkey: "key g (Init y) = (0, 0, 0)" for y using ti by (simp add: key_def time_inv_def)
  have cand: "cand_ok P (grf g) (run_co P g) (gv g)"
    unfolding cand_ok_def
  proof (intro conjI allI impI)
    fix r assume "is_rd P r"
    then show "is_wr P (grf g r)" "sloc P (grf g r) = sloc P r" using rdv by blast+
  next
    show "run_co P g \<subseteq> {(w, w'). is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> (\<forall>x. w' \<noteq> Init x)}"
      by (auto simp: run_co_def)
  next
    show "trans (run_co P g)"
      by (auto simp: trans_def run_co_def intro: klt_trans)
  next
    show "irrefl (run_co P g)"
      by (simp add: irrefl_def run_co_def klt_irrefl)
  next
    fix w w' assume a: "is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> w \<noteq> w'"
    then have "klt (key g w) (key g w') \<or> klt (key g w') (key g w)" using kdiff klt_total by blast
    then show "(w, w') \<in> run_co P g \<or> (w', w) \<in> run_co P g"
    proof
      assume k: "klt (key g w) (key g w')"
      then have "\<forall>x. w' \<noteq> Init x" using initkey klt_zero by metis
      then show ?thesis using a k by (simp add: run_co_def)
    next
      assume k: "klt (key g w') (key g w)"
      then have "\<forall>x. w \<noteq> Init x" using initkey klt_zero by metis
      then show ?thesis using a k by (simp add: run_co_def)
    qed
  next
    show "values_ok P (grf g) (gv g)"
      unfolding values_ok_def
    proof (intro conjI allI impI ballI)
      fix x show "gv g (Init x) = src_init P x" using ev_parts(1)[OF ei] by blast
    next
      fix r assume "is_rd P r"
      then show "gv g r = gv g (grf g r)" using rdv by blast
    next
      fix t i r x sc rm assume a: "acc P t i False" "ins P t i = Op (Store sc rm) r x"
      then have "i < kd S P s t" using ff(2)[of "Acc t i False"] by simp
      then show "gv g (Acc t i False) = tregs (src_code P t) (reads_val (gv g) t) i r"
        using ev_parts(3)[OF ei] a by blast
    next
      fix t i assume a: "acc P t i True"
      then have "i < kd S P s t" using ff(2)[of "Acc t i True"] by simp
      then show "gv g (Acc t i True) = gv g (Acc t i False) + 1"
        using ev_parts(4)[OF ei] a by blast
    qed
  qed
  have "is_outcome P (run_co P g) (gv g) (regs s, mem s)"
    unfolding is_outcome_def
  proof (intro conjI allI impI ballI)
    show "fst (regs s, mem s) = src_regs P (gv g)"
    proof (simp, rule ext)
      fix t
      show "regs s t = src_regs P (gv g) t"
      proof (cases "t \<in> src_threads P")
        case True
        then show ?thesis using ev_parts(5)[OF ei] ff(1) by (simp add: src_regs_def)
      next
        case False
        then show ?thesis using ev_parts(6)[OF ei] by (simp add: src_regs_def)
      qed
    qed
  next
    fix x assume x: "x \<notin> src_locs P"
    have c: "cell S P s g x" using li by (simp add: lines_inv_iff)
    then have "wx S P s x (hm g x)" "mem s x = gv g (hm g x)" by (simp_all add: cell_def)
    moreover have "hm g x = Init x"
    proof (rule ccontr)
      assume "hm g x \<noteq> Init x"
      then obtain t k p where "hm g x = Acc t k p" "acc P t k p" "addr_of (ins P t k) = Some x"
        using \<open>wx S P s x (hm g x)\<close> by (cases "hm g x") (auto simp: wx_def)
      then show False using x ev_loc' by blast
    qed
    ultimately show "snd (regs s, mem s) x = src_init P x" using ev_parts(1)[OF ei] by simp
  next
    fix x assume x: "x \<in> src_locs P"
    have c: "cell S P s g x" using li by (simp add: lines_inv_iff)
    then have h: "wx S P s x (hm g x)" "mem s x = gv g (hm g x)" by (simp_all add: cell_def)
    have wr: "is_wr P (hm g x)" using wx_Init_wr[OF h(1) x] .
    have sl: "sloc P (hm g x) = Some x" using wx_loc[OF h(1)] .
    have "(hm g x, w') \<notin> run_co P g" for w'
    proof
      assume a: "(hm g x, w') \<in> run_co P g"
      then have w': "is_wr P w'" "sloc P w' = Some x" "klt (key g (hm g x)) (key g w')"
        using sl by (auto simp: run_co_def)
      then have "wx S P s x w' \<and> ga3 g w' \<noteq> None" using ff(3) by blast
      then have "w' = hm g x \<or> klt (key g w') (key g (hm g x))" using c by (simp add: cell_def)
      then show False using w'(3) klt_irrefl klt_asym by blast
    qed
    then show "\<exists>w. is_wr P w \<and> sloc P w = Some x \<and> (\<forall>w'. (w, w') \<notin> run_co P g) \<and> snd (regs s, mem s) x = gv g w"
      using wr sl h(2) by auto
  qed
  then show ?thesis using cand by blast
qed

text \<open>For every program compiled by rows whose one data instruction is an
  L1 access or an increment at the L2, on every layout that places its
  threads, under both write-back policies: every final state the machine
  reaches shows the outcome of a candidate execution of the source program
  (Hrf_Source's cand_ok and is_outcome), whose reads read from the writes
  their lines held and whose coherence is the order in which writes reached
  memory. Race freedom is not needed; which model's axioms that candidate
  satisfies is the next step.\<close>
theorem machine_candidate:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and wp: "well_placed L P"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)"
proof -
  obtain g where inv: "ginv L S P s g" using ginv_reachable[OF reach rows] by blast
  then show ?thesis using final_candidate[OF rows wp inv fin] by blast
qed

corollary machine_outcomes_candidates:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "well_placed L P"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
      "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  then show "ob \<in> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob}"
    using machine_candidate[OF assms s(1,2)] by blast
qed

end
