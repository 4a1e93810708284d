(* hrf base theory: program order in the coherence a machine run exhibits
   (step (3) of docs/isabelle.md's plan for [RSP15]'s soundness theorem,
   its first part). A FLUSH marker leaves its fifo only after the addresses
   enqueued before it ([RSP15] sec. 5.2), so a thread that has flushed its
   L1 and waited has no write left in it. For a scheme whose increments at
   the L2 are preceded by such a flush (rsp-new's are), a thread's writes
   of a location reach the L2 and memory in program order, and the
   coherence order Hrf_Exhibit exhibits orders them as the program does:
   for every program of any length and thread count, on every layout,
   under both write-back policies, racy or not. Written by hand, every
   proof complete. *)
theory Hrf_Coherence
  imports Hrf_Exhibit
begin

section \<open>Flushes and the rows that need them\<close>

text \<open>Position n of a thread's code comes after a flush of its L1 with
  nothing but quiet instructions (flushes, invalidations, locks) between.\<close>
definition flushed :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "flushed xs n \<longleftrightarrow> (\<exists>j < n. (\<exists>sc. xs ! j = FLUL1 sc) \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m)))"

text \<open>fl_seq f xs: in xs every increment at the L2 comes after a flush of the
  L1 with only quiet instructions (flushes, invalidations, locks) between; f:
  the start of xs is such a place.\<close>
fun fl_seq :: "bool \<Rightarrow> instr list \<Rightarrow> bool" where
  "fl_seq f [] = True"
| "fl_seq f (i # xs) = (case i of
      FLUL1 _ \<Rightarrow> fl_seq True xs
    | INCL2 _ _ \<Rightarrow> f \<and> fl_seq False xs
    | _ \<Rightarrow> fl_seq (f \<and> quiet i) xs)"

text \<open>Each row that increments at the L2 flushes the L1 first (rsp-new's
  FLUL1 WG before RMWL2).\<close>
definition l2_flushed :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "l2_flushed S B \<longleftrightarrow> (\<forall>a \<in> B. \<exists>rw. S a = Some rw \<and> (\<forall>r x. fl_seq False (rw r x)))"

lemma l2_flushed_empty [simp]: "l2_flushed S {}"
  by (simp add: l2_flushed_def)

lemma flushed_append: "flushed ys m \<Longrightarrow> flushed (xs @ ys) (length xs + m)"
proof -
  assume "flushed ys m"
  then obtain j sc where j: "j < m" "ys ! j = FLUL1 sc" "\<forall>k. j < k \<and> k < m \<longrightarrow> quiet (ys ! k)"
    by (auto simp: flushed_def)
  have "(xs @ ys) ! (length xs + j) = FLUL1 sc" using j(2) by (simp add: nth_append)
  moreover have "\<forall>k. length xs + j < k \<and> k < length xs + m \<longrightarrow> quiet ((xs @ ys) ! k)"
  proof (intro allI impI)
    fix k assume k: "length xs + j < k \<and> k < length xs + m"
    then have "(xs @ ys) ! k = ys ! (k - length xs)" by (simp add: nth_append)
    moreover have "j < k - length xs" "k - length xs < m" using k by auto
    ultimately show "quiet ((xs @ ys) ! k)" using j(3) by simp
  qed
  ultimately show ?thesis using j(1) unfolding flushed_def
    by (intro exI[of _ "length xs + j"]) auto
qed

lemma fl_seq_mono: "fl_seq False xs \<Longrightarrow> fl_seq f xs"
  by (induction xs arbitrary: f) (auto split: instr.splits)

lemma fl_seq_append: "fl_seq f xs \<Longrightarrow> fl_seq False ys \<Longrightarrow> fl_seq f (xs @ ys)"
  by (induction xs arbitrary: f) (auto split: instr.splits intro: fl_seq_mono)

lemma fl_seq_no_incl2: "\<forall>r x. INCL2 r x \<notin> set xs \<Longrightarrow> fl_seq f xs"
  by (induction xs arbitrary: f) (auto split: instr.splits)

text \<open>In such code every increment at the L2 is at a flushed position.\<close>
lemma fl_seq_flushed: "fl_seq f xs \<Longrightarrow> n < length xs \<Longrightarrow> xs ! n = INCL2 r x
    \<Longrightarrow> flushed xs n \<or> (f \<and> (\<forall>m < n. quiet (xs ! m)))"
proof (induction xs arbitrary: f n)
  case Nil
  then show ?case by simp
next
  case (Cons i xs)
  show ?case
  proof (cases n)
    case 0
    then show ?thesis using Cons.prems by simp
  next
    case (Suc n')
    have n': "n' < length xs" "xs ! n' = INCL2 r x" using Cons.prems(2,3) Suc by simp_all
    have sh: "flushed (i # xs) n" if "flushed xs n'"
      using flushed_append[OF that, of "[i]"] Suc by simp
    show ?thesis
    proof (cases "\<exists>sc. i = FLUL1 sc")
      case True
      then obtain sc where i: "i = FLUL1 sc" by blast
      then have "flushed xs n' \<or> (\<forall>m < n'. quiet (xs ! m))" using Cons.IH[of True n'] Cons.prems(1) n' by simp
      moreover have "flushed (i # xs) n" if "\<forall>m < n'. quiet (xs ! m)"
        unfolding flushed_def using i that Suc
        by (intro exI[of _ 0]) (auto simp: nth_Cons' split: if_splits)
      ultimately show ?thesis using sh by blast
    next
      case nf: False
      then have "fl_seq (f \<and> quiet i) xs \<or> fl_seq False xs"
        using Cons.prems(1) by (cases i) auto
      then have "flushed xs n' \<or> (f \<and> quiet i \<and> (\<forall>m < n'. quiet (xs ! m)))"
        using Cons.IH n' by blast
      moreover have "\<forall>m < n. quiet ((i # xs) ! m)" if "quiet i" "\<forall>m < n'. quiet (xs ! m)"
        using that Suc by (auto simp: nth_Cons' less_Suc_eq_0_disj)
      ultimately show ?thesis using sh by blast
    qed
  qed
qed

text \<open>So in code compiled by such rows, every increment at the L2 is flushed.\<close>
lemma compiled_flushed:
  assumes rows: "l1_rows S A" "l2_rows S B" "l2_flushed S B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "concat (map (compile_instr S) c) ! n = INCL2 r x"
  shows "flushed (concat (map (compile_instr S) c)) n"
proof -
  have "fl_seq False (compile_instr S i)" if "i \<in> set c" for i
  proof (cases i)
    case (Op a r' x')
    then have a: "a \<in> A \<union> B" using rows(4) that by (auto simp: op_of_def)
    show ?thesis
    proof (cases "a \<in> B")
      case True
      then obtain rw where "S a = Some rw" "\<forall>r x. fl_seq False (rw r x)" using rows(3) by (auto simp: l2_flushed_def)
      then show ?thesis using Op by (simp add: compile_instr_def)
    next
      case False
      then obtain rw where rw: "S a = Some rw" "l1_row a rw" using rows(1) a by (auto simp: l1_rows_def)
      have "INCL2 rq xq \<notin> set (rw r' x')" for rq xq
      proof
        assume "INCL2 rq xq \<in> set (rw r' x')"
        then have "INCL2 rq xq \<in> set (filter visible (rw r' x'))" by simp
        moreover have "filter visible (rw r' x') = [access a r' x']" using rw(2) by (simp add: l1_row_def)
        ultimately have "INCL2 rq xq = access a r' x'" by simp
        then show False by (cases a) (simp_all add: access_def)
      qed
      then show ?thesis using Op rw(1) fl_seq_no_incl2 by (simp add: compile_instr_def)
    qed
  next
    case (SetReg r' v)
    then show ?thesis by (simp add: compile_instr_def)
  qed
  then have "fl_seq False (concat (map (compile_instr S) c))"
    by (induction c) (auto intro: fl_seq_append)
  then show ?thesis using fl_seq_flushed n by blast
qed

section \<open>The invariant\<close>

text \<open>[RSP15] sec. 5.2: a FLUSH marker leaves an L1's fifo only after the
  addresses enqueued before it. A write waiting in an L1 has its address in
  the L1's fifo ahead of every marker of its own thread.\<close>
definition fifo_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "fifo_ok L S P s g \<longleftrightarrow> (\<forall>w x e. e \<in> pend1 L S P s g w x \<longrightarrow> (\<exists>i < length (l1_fifo s w).
     l1_fifo s w ! i = Addr x \<and> (\<forall>j < i. \<forall>u. sthread e = Some u \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u)))"

text \<open>From a flush of its L1 until its next visible instruction, a thread's
  writes still waiting in its L1 wait ahead of its marker.\<close>
definition since_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "since_ok L S P s g \<longleftrightarrow> (\<forall>t \<in> src_threads P. flushed (instrs (compile S P) t) (pc s t) \<longrightarrow>
     (\<forall>x e. e \<in> pend1 L S P s g (wg_of L t) x \<and> sthread e = Some t \<longrightarrow> Flush t \<in> set (l1_fifo s (wg_of L t))))"

text \<open>A thread's writes of a location are performed, reach the L2 and reach
  memory in program order.\<close>
definition ww_ok :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "ww_ok S P s g \<longleftrightarrow> (\<forall>e e'. (e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<and> done_ev S P s e' \<longrightarrow>
     gt g e < gt g e' \<and> (ga2 g e' \<noteq> None \<longrightarrow> ga2 g e \<noteq> None \<and> the (ga2 g e) \<le> the (ga2 g e'))
     \<and> (ga3 g e' \<noteq> None \<longrightarrow> ga3 g e \<noteq> None \<and> the (ga3 g e) \<le> the (ga3 g e')))"

definition oinv :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "oinv L S P s g \<longleftrightarrow> fifo_ok L S P s g \<and> since_ok L S P s g \<and> ww_ok S P s g"

lemma po_done: "(e, e') \<in> src_po P \<Longrightarrow> done_ev S P s e' \<Longrightarrow> done_ev S P s e"
  by (auto simp: src_po_def)

lemma oinv_initial: "oinv L S P (initial (src_init P)) (ghost0 P)"
proof -
  have "pend1 L S P (initial (src_init P)) (ghost0 P) w x = {}" for w x
    by (auto simp: pend1_def wx_initial)
  moreover have "\<not> (done_ev S P (initial (src_init P)) e' \<and> (e, e') \<in> src_po P)" for e e'
    by (auto simp: src_po_def)
  ultimately show ?thesis by (auto simp: oinv_def fifo_ok_def since_ok_def ww_ok_def)
qed

section \<open>Environment steps keep it\<close>

text \<open>A step that keeps the L1 fifos or pops the head of one, and lets no
  write start waiting in an L1 (none that waits behind the popped address).\<close>
lemma fs_mono:
  assumes fo: "fifo_ok L S P s g" and so: "since_ok L S P s g" and pc: "pc s' = pc s"
    and sub: "\<forall>w y. pend1 L S P s' g' w y \<subseteq> pend1 L S P s g w y"
    and q: "\<forall>w. l1_fifo s' w = l1_fifo s w \<or> (\<exists>e0. l1_fifo s w = e0 # l1_fifo s' w
      \<and> (\<forall>y. e0 = Addr y \<longrightarrow> pend1 L S P s' g' w y = {}))"
  shows "fifo_ok L S P s' g' \<and> since_ok L S P s' g'"
proof
  show "fifo_ok L S P s' g'"
    unfolding fifo_ok_def
  proof (intro allI impI)
    fix w y e assume e': "e \<in> pend1 L S P s' g' w y"
    then have e: "e \<in> pend1 L S P s g w y" using sub by blast
    obtain i where i: "i < length (l1_fifo s w)" "l1_fifo s w ! i = Addr y"
      "\<forall>j < i. \<forall>u. sthread e = Some u \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u"
      using fo e unfolding fifo_ok_def by blast
    show "\<exists>i < length (l1_fifo s' w). l1_fifo s' w ! i = Addr y
        \<and> (\<forall>j < i. \<forall>u. sthread e = Some u \<longrightarrow> l1_fifo s' w ! j \<noteq> Flush u)"
    proof (cases "l1_fifo s' w = l1_fifo s w")
      case True
      then show ?thesis using i by metis
    next
      case False
      then obtain e0 where e0: "l1_fifo s w = e0 # l1_fifo s' w" "\<forall>y. e0 = Addr y \<longrightarrow> pend1 L S P s' g' w y = {}"
        using q by blast
      have "i \<noteq> 0" using i(2) e0 e' by (metis nth_Cons_0 empty_iff)
      then obtain i' where i': "i = Suc i'" by (cases i) auto
      show ?thesis
      proof (intro exI conjI allI impI)
        show "i' < length (l1_fifo s' w)" using i(1) i' e0(1) by simp
        show "l1_fifo s' w ! i' = Addr y" using i(2) i' e0(1) by simp
        fix j u assume "j < i'" "sthread e = Some u"
        then show "l1_fifo s' w ! j \<noteq> Flush u" using i(3) i' e0(1) by (metis Suc_mono nth_Cons_Suc)
      qed
    qed
  qed
  show "since_ok L S P s' g'"
    unfolding since_ok_def
  proof (intro ballI impI allI)
    fix t y e assume t: "t \<in> src_threads P" and fl: "flushed (instrs (compile S P) t) (pc s' t)"
      and e': "e \<in> pend1 L S P s' g' (wg_of L t) y \<and> sthread e = Some t"
    define w where "w = wg_of L t"
    have e: "e \<in> pend1 L S P s g w y" using sub e' by (auto simp: w_def)
    have "Flush t \<in> set (l1_fifo s w)" using so t fl pc e e' unfolding since_ok_def w_def by metis
    show "Flush t \<in> set (l1_fifo s' (wg_of L t))"
    proof (cases "l1_fifo s' w = l1_fifo s w")
      case True
      then show ?thesis using \<open>Flush t \<in> set (l1_fifo s w)\<close> by (simp add: w_def)
    next
      case False
      then obtain e0 where e0: "l1_fifo s w = e0 # l1_fifo s' w" "\<forall>y. e0 = Addr y \<longrightarrow> pend1 L S P s' g' w y = {}"
        using q by blast
      obtain i where i: "i < length (l1_fifo s w)" "l1_fifo s w ! i = Addr y"
        "\<forall>j < i. \<forall>u. sthread e = Some u \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u"
        using fo e unfolding fifo_ok_def by blast
      have "e0 \<noteq> Flush t"
      proof (cases i)
        case 0
        then show ?thesis using i(2) e0(1) by simp
      next
        case (Suc i')
        then show ?thesis using i(3) e0(1) e' by (metis nth_Cons_0 zero_less_Suc)
      qed
      then show ?thesis using \<open>Flush t \<in> set (l1_fifo s w)\<close> e0(1) by (simp add: w_def)
    qed
  qed
qed

lemma wx_loc_eq: "wx S P s x e \<Longrightarrow> wx S P s y e \<Longrightarrow> x = y"
proof -
  assume "wx S P s x e" "wx S P s y e"
  then have "sloc P e = Some x" "sloc P e = Some y" using wx_loc by blast+
  then show "x = y" by simp
qed

lemma pend1_wb1: "pend1 L S P s (wb1g L S P s g w x) w' y = (if w' = w \<and> y = x then {} else pend1 L S P s g w' y)"
proof -
  have "e \<notin> pend1 L S P s g w x" if "e \<in> pend1 L S P s g w' y" "\<not> (w' = w \<and> y = x)" for e
    using that wx_loc_eq by (auto simp: pend1_def)
  then show ?thesis by (auto simp: pend1_def wb1g_def)
qed

lemma pend1_wb2: "pend1 L S P s (wb2g L S P s g d x) = pend1 L S P s g"
  by (simp add: pend1_def[abs_def] wb2g_def)

lemma wr_wx: "is_wr P e \<Longrightarrow> done_ev S P s e \<Longrightarrow> sloc P e = Some x \<Longrightarrow> wx S P s x e"
  by (cases e) (auto simp: wx_def)

text \<open>Same thread, same location: the same L1 line and the same L2 line.\<close>
lemma po_same: "(e, e') \<in> src_po P \<Longrightarrow> ewg L e = ewg L e'"
  by (auto simp: src_po_def)

lemma po_acc: "(e, e') \<in> src_po P \<Longrightarrow> (\<forall>y. e \<noteq> Init y) \<and> (\<forall>y. e' \<noteq> Init y)"
  by (auto simp: src_po_def)

lemma ww_wb1:
  assumes ti: "time_inv S P s g" and ww: "ww_ok S P s g"
  shows "ww_ok S P s (wb1g L S P s g w x)"
  unfolding ww_ok_def
proof (intro allI impI)
  fix e e' assume a: "(e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<and> done_ev S P s e'"
  define g' where "g' = wb1g L S P s g w x"
  have o: "gt g e < gt g e' \<and> (ga2 g e' \<noteq> None \<longrightarrow> ga2 g e \<noteq> None \<and> the (ga2 g e) \<le> the (ga2 g e'))
     \<and> (ga3 g e' \<noteq> None \<longrightarrow> ga3 g e \<noteq> None \<and> the (ga3 g e) \<le> the (ga3 g e'))"
    using ww a unfolding ww_ok_def by blast
  obtain y where y: "sloc P e' = Some y" using a wr_loc by blast
  have de: "done_ev S P s e" using po_done a by blast
  have wxs: "wx S P s y e" "wx S P s y e'" using wr_wx a de y by metis+
  have ni: "\<forall>z. e \<noteq> Init z" using po_acc a by blast
  have lt: "\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g" using time_perf[OF ti wxs(1) ni] by blast
  have same: "e \<in> pend1 L S P s g w x" if "e' \<in> pend1 L S P s g w x" "ga2 g e = None"
  proof -
    have p: "wx S P s x e'" "ewg L e' = Some w" using that(1) by (auto simp: pend1_def)
    then have "x = y" using wx_loc_eq wxs(2) by blast
    then show ?thesis using wxs(1) po_same[of e e' P L] a that(2) p(2) by (auto simp: pend1_def)
  qed
  have notp: "e \<notin> pend1 L S P s g w x" if "e' \<notin> pend1 L S P s g w x" "ga2 g e' \<noteq> None"
    using that o by (auto simp: pend1_def)
  have "ga2 g' e' \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None \<and> the (ga2 g' e) \<le> the (ga2 g' e')"
  proof (cases "e' \<in> pend1 L S P s g w x")
    case True
    then show ?thesis using same lt by (cases "ga2 g e") (auto simp: g'_def wb1g_def pend1_def)
  next
    case False
    then have "ga2 g' e' = ga2 g e'" by (simp add: g'_def wb1g_def)
    then show ?thesis using o notp False by (auto simp: g'_def wb1g_def)
  qed
  then show "gt g' e < gt g' e' \<and> (ga2 g' e' \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None \<and> the (ga2 g' e) \<le> the (ga2 g' e'))
     \<and> (ga3 g' e' \<noteq> None \<longrightarrow> ga3 g' e \<noteq> None \<and> the (ga3 g' e) \<le> the (ga3 g' e'))"
    using o by (simp add: g'_def wb1g_def)
qed

lemma ww_wb2:
  assumes ti: "time_inv S P s g" and ww: "ww_ok S P s g"
  shows "ww_ok S P s (wb2g L S P s g d x)"
  unfolding ww_ok_def
proof (intro allI impI)
  fix e e' assume a: "(e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<and> done_ev S P s e'"
  define g' where "g' = wb2g L S P s g d x"
  have o: "gt g e < gt g e' \<and> (ga2 g e' \<noteq> None \<longrightarrow> ga2 g e \<noteq> None \<and> the (ga2 g e) \<le> the (ga2 g e'))
     \<and> (ga3 g e' \<noteq> None \<longrightarrow> ga3 g e \<noteq> None \<and> the (ga3 g e) \<le> the (ga3 g e'))"
    using ww a unfolding ww_ok_def by blast
  obtain y where y: "sloc P e' = Some y" using a wr_loc by blast
  have de: "done_ev S P s e" using po_done a by blast
  have wxs: "wx S P s y e" "wx S P s y e'" using wr_wx a de y by metis+
  have ni: "\<forall>z. e \<noteq> Init z" using po_acc a by blast
  have lt: "\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g" using time_perf[OF ti wxs(1) ni] by blast
  have same: "e \<in> pend2 L S P s g d x" if "e' \<in> pend2 L S P s g d x" "ga3 g e = None"
  proof -
    have p: "wx S P s x e'" "map_option (dev_of L) (ewg L e') = Some d" "ga2 g e' \<noteq> None"
      using that(1) by (auto simp: pend2_def)
    then have "x = y" using wx_loc_eq wxs(2) by blast
    then show ?thesis using wxs(1) po_same[of e e' P L] a that(2) p(2,3) o by (auto simp: pend2_def)
  qed
  have notp: "e \<notin> pend2 L S P s g d x" if "e' \<notin> pend2 L S P s g d x" "ga3 g e' \<noteq> None"
    using that o by (auto simp: pend2_def)
  have "ga3 g' e' \<noteq> None \<longrightarrow> ga3 g' e \<noteq> None \<and> the (ga3 g' e) \<le> the (ga3 g' e')"
  proof (cases "e' \<in> pend2 L S P s g d x")
    case True
    then show ?thesis using same lt by (cases "ga3 g e") (auto simp: g'_def wb2g_def pend2_def)
  next
    case False
    then have "ga3 g' e' = ga3 g e'" by (simp add: g'_def wb2g_def)
    then show ?thesis using o notp False by (auto simp: g'_def wb2g_def)
  qed
  then show "gt g' e < gt g' e' \<and> (ga2 g' e' \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None \<and> the (ga2 g' e) \<le> the (ga2 g' e'))
     \<and> (ga3 g' e' \<noteq> None \<longrightarrow> ga3 g' e \<noteq> None \<and> the (ga3 g' e) \<le> the (ga3 g' e'))"
    using o by (simp add: g'_def wb2g_def)
qed

lemma dequeue_l1_pop:
  assumes "dequeue_l1 L w s = Some s'"
  obtains e0 rest where "l1_fifo s w = e0 # rest" "s' = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>"
      "\<forall>y. e0 = Addr y \<longrightarrow> \<not> dirty (l1 s w y)"
  | rest y where "l1_fifo s w = Addr y # rest" "dirty (l1 s w y)"
      "s' = write_back_l1 L w y (s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>)"
  using assms by (auto simp: dequeue_l1_def Let_def split: list.splits fifo_el.splits if_splits)

lemma wb_fields:
  "l1_fifo (write_back_l1 L w x s) = l1_fifo s" "pc (write_back_l1 L w x s) = pc s"
  "l1_fifo (write_back_l2 d x s) = l1_fifo s" "pc (write_back_l2 d x s) = pc s"
  by (simp_all add: write_back_l1_def write_back_l2_def enq_l2_def set_l2_def set_l1_def split: option.splits prod.splits)

text \<open>Steps that change no time of the ghost and no L1 fifo keep it.\<close>
lemma oinv_keep:
  assumes oi: "oinv L S P s g" and pc: "pc s1 = pc s" and q: "l1_fifo s1 = l1_fifo s"
    and gh: "gt g1 = gt g" "ga2 g1 = ga2 g" "ga3 g1 = ga3 g"
  shows "oinv L S P s1 g1"
proof -
  have e1: "pend1 L S P s1 g1 = pend1 L S P s g"
    using pend_same[OF pc] gh by (simp add: pend1_def[abs_def])
  have e2: "done_ev S P s1 = done_ev S P s" using done_same[OF pc] .
  show ?thesis using oi unfolding oinv_def fifo_ok_def since_ok_def ww_ok_def e1 e2 pc q gh .
qed

lemma oinv_wb1:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and pc: "pc s1 = pc s"
    and q: "\<forall>v. l1_fifo s1 v = l1_fifo s v \<or> (v = w \<and> l1_fifo s w = Addr x # l1_fifo s1 w)"
  shows "oinv L S P s1 (wb1g L S P s g w x)"
proof -
  define g' where "g' = wb1g L S P s g w x"
  have pe: "pend1 L S P s1 g' v y = (if v = w \<and> y = x then {} else pend1 L S P s g v y)" for v y
    using pend1_wb1[of L S P s g w x v y] pend_same[OF pc] by (simp add: g'_def)
  have fs: "fifo_ok L S P s1 g' \<and> since_ok L S P s1 g'"
    by (rule fs_mono[OF _ _ pc]) (use oi pe q in \<open>auto simp: oinv_def\<close>)
  have "ww_ok S P s g'" using ww_wb1 inv oi by (simp add: ginv_def oinv_def g'_def)
  then have "ww_ok S P s1 g'" unfolding ww_ok_def done_same[OF pc] .
  then show ?thesis using fs by (simp add: oinv_def g'_def)
qed

lemma oinv_wb2:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and pc: "pc s1 = pc s" and q: "l1_fifo s1 = l1_fifo s"
  shows "oinv L S P s1 (wb2g L S P s g d x)"
proof -
  define g' where "g' = wb2g L S P s g d x"
  have pe: "pend1 L S P s1 g' = pend1 L S P s g"
    using pend1_wb2[of L S P s g d x] pend_same[OF pc] by (simp add: g'_def)
  have fs: "fifo_ok L S P s1 g' \<and> since_ok L S P s1 g'"
    by (rule fs_mono[OF _ _ pc]) (use oi pe q in \<open>auto simp: oinv_def\<close>)
  have "ww_ok S P s g'" using ww_wb2 inv oi by (simp add: ginv_def oinv_def g'_def)
  then have "ww_ok S P s1 g'" unfolding ww_ok_def done_same[OF pc] .
  then show ?thesis using fs by (simp add: oinv_def g'_def)
qed

text \<open>Every environment step keeps both invariants, with the ghost updated.\<close>
lemma oinv_env:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and st: "s' \<in> env_step L wb s"
  shows "\<exists>g'. ginv L S P s' g' \<and> oinv L S P s' g'"
proof -
  have fifo2: "ginv L S P (s\<lparr>l2_fifo := q\<rparr>) g" for q
    using ginv_cong[of "s\<lparr>l2_fifo := q\<rparr>" s] inv by simp
  have pcs: "pc s' = pc s" using env_step_regs_pc_locks[OF st] by simp
  from env_step_cases[OF st] show ?thesis
  proof (elim disjE exE conjE)
    fix w x assume f: "fetch_l1 L w x s = Some s'"
    then have "l1_fifo s' = l1_fifo s" by (auto simp: fetch_l1_def set_l1_def split: if_splits)
    then show ?thesis using fetch1_inv[OF inv f] oinv_keep[OF oi pcs] by fastforce
  next
    fix d x assume f: "fetch_l2 d x s = Some s'"
    then have "l1_fifo s' = l1_fifo s" by (auto simp: fetch_l2_def set_l2_def split: if_splits)
    then show ?thesis using fetch2_inv[OF inv f] oinv_keep[OF oi pcs] by fastforce
  next
    fix w assume dq: "dequeue_l1 L w s = Some s'"
    then show ?thesis
    proof (cases rule: dequeue_l1_pop)
      case (1 e0 rest)
      have gi: "ginv L S P s' g" using ginv_cong[of s' s] inv 1(2) by simp
      have di: "dirty_inv L S P s g" using inv by (simp add: ginv_def)
      have pe: "pend1 L S P s' g = pend1 L S P s g" using pend_same[OF pcs] by simp
      have emp: "pend1 L S P s g w y = {}" if "e0 = Addr y" for y
        using di 1(3) that by (simp add: dirty_inv_def)
      have fs: "fifo_ok L S P s' g \<and> since_ok L S P s' g"
        by (rule fs_mono[OF _ _ pcs]) (use oi pe emp 1(1,2) in \<open>auto simp: oinv_def\<close>)
      have "ww_ok S P s' g" using oi unfolding oinv_def ww_ok_def done_same[OF pcs] by blast
      then show ?thesis using gi fs by (auto simp: oinv_def)
    next
      case (2 rest y)
      define s1 where "s1 = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>"
      have g1: "ginv L S P s1 g" using ginv_cong[of s1 s] inv by (simp add: s1_def)
      have d1: "dirty (l1 s1 w y)" using 2(2) by (simp add: s1_def)
      have "wb1g L S P s1 g w y = wb1g L S P s g w y"
        using pend_same[of s1 s] by (simp add: s1_def wb1g_def)
      then have gi: "ginv L S P s' (wb1g L S P s g w y)" using wb1_inv[OF g1 d1] 2(3) by (simp add: s1_def)
      have "\<forall>v. l1_fifo s' v = l1_fifo s v \<or> (v = w \<and> l1_fifo s w = Addr y # l1_fifo s' w)"
        using 2(1,3) wb_fields(1) by (simp add: s1_def)
      then show ?thesis using oinv_wb1[OF inv oi pcs] gi by blast
    qed
  next
    fix d assume dq: "dequeue_l2 d s = Some s'"
    then show ?thesis
    proof (cases rule: dequeue_l2_cases)
      case (1 q)
      then show ?thesis using fifo2 oinv_keep[OF oi pcs] by fastforce
    next
      case (2 q x)
      have d1: "dirty (l2 (s\<lparr>l2_fifo := q\<rparr>) d x)" using 2(1) by simp
      have "wb2g L S P (s\<lparr>l2_fifo := q\<rparr>) g d x = wb2g L S P s g d x"
        using pend_same[of "s\<lparr>l2_fifo := q\<rparr>" s] by (simp add: wb2g_def)
      then have gi: "ginv L S P s' (wb2g L S P s g d x)" using wb2_inv[OF fifo2 d1] 2(2) by simp
      have "l1_fifo s' = l1_fifo s" using 2(2) wb_fields(3) by simp
      then show ?thesis using oinv_wb2[OF inv oi pcs] gi by blast
    qed
  next
    fix w x assume d: "dirty (l1 s w x)" "s' = write_back_l1 L w x s"
    then show ?thesis using wb1_inv[OF inv d(1)] oinv_wb1[OF inv oi pcs] wb_fields(1) by fastforce
  next
    fix d x assume d: "dirty (l2 s d x)" "s' = write_back_l2 d x s"
    then show ?thesis using wb2_inv[OF inv d(1)] oinv_wb2[OF inv oi pcs] wb_fields(3) by fastforce
  next
    fix w x assume d: "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
    then show ?thesis using evict1_inv[OF inv d(1)] oinv_keep[OF oi pcs] by (fastforce simp: set_l1_def)
  next
    fix d x assume d: "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
    then show ?thesis using evict2_inv[OF inv d(1)] oinv_keep[OF oi pcs] by (fastforce simp: set_l2_def)
  qed
qed

section \<open>Thread steps keep it\<close>

lemma new_thread: "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u \<Longrightarrow> done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e \<Longrightarrow> sthread e = Some t"
  by (cases e) (auto simp: kd_def split: if_splits)

lemma flushed_Suc: "flushed xs (Suc n) \<Longrightarrow> (\<forall>sc. xs ! n \<noteq> FLUL1 sc) \<Longrightarrow> flushed xs n \<and> quiet (xs ! n)"
proof -
  assume f: "flushed xs (Suc n)" and nf: "\<forall>sc. xs ! n \<noteq> FLUL1 sc"
  then obtain j sc where j: "j < Suc n" "xs ! j = FLUL1 sc" "\<forall>m. j < m \<and> m < Suc n \<longrightarrow> quiet (xs ! m)"
    by (auto simp: flushed_def)
  have "j \<noteq> n" using j(2) nf by auto
  then have "j < n" using j(1) by simp
  then show ?thesis using j unfolding flushed_def by auto
qed

text \<open>What a thread's instruction does to the L1 fifos: a store or an
  increment in the L1 enqueues its address on its work-group's fifo, a
  flush of the L1 its marker on those in its scope; nothing else.\<close>
lemma exec_fifo:
  assumes "exec L t i s = Some z"
  shows "l1_fifo z = (case i of ST v x \<Rightarrow> (l1_fifo s)(wg_of L t := l1_fifo s (wg_of L t) @ [Addr x])
     | INCL1 r x \<Rightarrow> (l1_fifo s)(wg_of L t := l1_fifo s (wg_of L t) @ [Addr x])
     | FLUL1 sc \<Rightarrow> (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then l1_fifo s w @ [Flush t] else l1_fifo s w)
     | _ \<Rightarrow> l1_fifo s)"
  using assms by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)

lemma wg_in_scope: "w \<in> wgs L \<Longrightarrow> w \<in> wgs_in L sc w"
  by (cases sc) (auto simp: wgs_in_def)

text \<open>Every step of a thread keeps both invariants, with the ghost updated,
  for a scheme whose increments at the L2 are flushed.\<close>
lemma oinv_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
  shows "\<exists>g'. ginv L S P s' g' \<and> oinv L S P s' g'"
proof -
  define xs where "xs = instrs (compile S P) t"
  define n where "n = pc s t"
  define i where "i = xs ! n"
  obtain g' where gi: "ginv L S P s' g'" and gs: "gstep P (done_ev S P s) (done_ev S P s') i g g'"
    using ginv_thread_ghost[OF inv t st rows(1-3)] by (auto simp: i_def xs_def n_def)
  have xs: "xs = concat (map (compile_instr S) (src_code P t))"
    by (simp add: xs_def compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
    using rows(3) t by (auto simp: ops_of_def)
  obtain z where nl: "n < length xs" and z: "exec L t i s = Some z" "s' = set_pc t (next_pc t i s) z"
    and nu: "\<not> unflushed L s t"
    using st by (auto simp: step_thread_def xs_def n_def i_def compile_def Let_def split: if_splits)
  have vq: "visible i \<or> quiet i"
    using compiled_code(2)[OF rows(1,2) ops] nl by (simp add: i_def xs[symmetric])
  then have nxt: "next_pc t i s = Suc n"
    by (cases i) (auto simp: next_pc_def n_def)
  have pcz: "pc z = pc s"
    using z(1) by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)
  have pc': "pc s' = (pc s)(t := Suc n)" "l1_fifo s' = l1_fifo z"
    using z(2) nxt pcz by (simp_all add: set_pc_def)
  have pco: "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u" using pc' by simp
  define w0 where "w0 = wg_of L t"
  have w0: "w0 \<in> wgs L" using wp t by (simp add: well_placed_def w0_def)
  have nf: "Flush t \<notin> set (l1_fifo s w0)" using nu w0 by (auto simp: unflushed_def)
  have fq: "l1_fifo s' = (case i of ST v x \<Rightarrow> (l1_fifo s)(w0 := l1_fifo s w0 @ [Addr x])
     | INCL1 r x \<Rightarrow> (l1_fifo s)(w0 := l1_fifo s w0 @ [Addr x])
     | FLUL1 sc \<Rightarrow> (\<lambda>w. if w \<in> wgs_in L sc w0 then l1_fifo s w @ [Flush t] else l1_fifo s w)
     | _ \<Rightarrow> l1_fifo s)"
    using exec_fifo[OF z(1)] pc'(2) unfolding w0_def by simp
  have grow: "\<exists>ys. l1_fifo s' w = l1_fifo s w @ ys" for w
    using fq by (cases i) auto
  have fo: "fifo_ok L S P s g" and so: "since_ok L S P s g" and ww: "ww_ok S P s g"
    using oi by (simp_all add: oinv_def)
  have ti: "time_inv S P s g" using inv by (simp add: ginv_def)
  have gs1: "\<forall>e. done_ev S P s e \<longrightarrow> gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e"
    and gs2: "\<forall>e. is_wr P e \<and> done_ev S P s' e \<and> \<not> done_ev S P s e \<longrightarrow> clk g < gt g' e \<and> gt g' e < clk g' \<and> ga3 g' e = None
          \<and> ((ga2 g' e = None \<and> (\<exists>y v r. sloc P e = Some y \<and> (i = ST v y \<or> i = INCL1 r y)))
             \<or> (ga2 g' e = Some (gt g' e) \<and> (\<exists>r x. i = INCL2 r x)))"
    using gs by (simp_all add: gstep_def)
  \<comment> \<open>a write waiting in an L1 after the step waited before it, or is the step's own\<close>
  have old: "e \<in> pend1 L S P s g w y" if "e \<in> pend1 L S P s' g' w y" "done_ev S P s e" for e w y
  proof -
    have "wx S P s' y e" "ewg L e = Some w" "ga2 g' e = None" using that(1) by (auto simp: pend1_def)
    moreover have "wx S P s y e" using \<open>wx S P s' y e\<close> that(2) by (auto simp: wx_def)
    ultimately show ?thesis using gs1 that(2) by (auto simp: pend1_def)
  qed
  have new: "sthread e = Some t \<and> w = w0 \<and> (\<exists>v r. i = ST v y \<or> i = INCL1 r y)"
    if "e \<in> pend1 L S P s' g' w y" "\<not> done_ev S P s e" for e w y
  proof -
    have p: "wx S P s' y e" "ewg L e = Some w" "ga2 g' e = None" using that(1) by (auto simp: pend1_def)
    have ni: "\<forall>z. e \<noteq> Init z" using that(2) by auto
    then have wr: "is_wr P e" "done_ev S P s' e" "sloc P e = Some y" using p(1) by (auto simp: wx_def)
    have th: "sthread e = Some t" using new_thread[OF pco wr(2) that(2)] .
    then have "w = w0" using p(2) by (cases e) (auto simp: w0_def)
    moreover have "\<exists>v r. i = ST v y \<or> i = INCL1 r y" using gs2 wr that(2) p(3) by fastforce
    ultimately show ?thesis using th by blast
  qed
  have fo': "fifo_ok L S P s' g'"
    unfolding fifo_ok_def
  proof (intro allI impI)
    fix w y e assume e: "e \<in> pend1 L S P s' g' w y"
    show "\<exists>k < length (l1_fifo s' w). l1_fifo s' w ! k = Addr y
        \<and> (\<forall>j < k. \<forall>u. sthread e = Some u \<longrightarrow> l1_fifo s' w ! j \<noteq> Flush u)"
    proof (cases "done_ev S P s e")
      case True
      then have "e \<in> pend1 L S P s g w y" using old e by blast
      then obtain k where k: "k < length (l1_fifo s w)" "l1_fifo s w ! k = Addr y"
        "\<forall>j < k. \<forall>u. sthread e = Some u \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u"
        using fo unfolding fifo_ok_def by blast
      obtain ys where ys: "l1_fifo s' w = l1_fifo s w @ ys" using grow by blast
      show ?thesis using k ys by (intro exI[of _ k]) (auto simp: nth_append)
    next
      case False
      then have n: "sthread e = Some t" "w = w0" "\<exists>v r. i = ST v y \<or> i = INCL1 r y" using new e by blast+
      then have q: "l1_fifo s' w = l1_fifo s w0 @ [Addr y]" using fq by auto
      show ?thesis
      proof (intro exI[of _ "length (l1_fifo s w0)"] conjI allI impI)
        show "length (l1_fifo s w0) < length (l1_fifo s' w)" "l1_fifo s' w ! length (l1_fifo s w0) = Addr y"
          using q by simp_all
        fix j u assume "j < length (l1_fifo s w0)" "sthread e = Some u"
        then show "l1_fifo s' w ! j \<noteq> Flush u" using q n(1) nf by (auto simp: nth_append) (metis nth_mem)
      qed
    qed
  qed
  have so': "since_ok L S P s' g'"
    unfolding since_ok_def
  proof (intro ballI impI allI)
    fix u y e assume u: "u \<in> src_threads P" and fl: "flushed (instrs (compile S P) u) (pc s' u)"
      and e: "e \<in> pend1 L S P s' g' (wg_of L u) y \<and> sthread e = Some u"
    show "Flush u \<in> set (l1_fifo s' (wg_of L u))"
    proof (cases "u = t")
      case False
      have "done_ev S P s e" using new e False by fastforce
      then have "e \<in> pend1 L S P s g (wg_of L u) y" using old e by blast
      then have "Flush u \<in> set (l1_fifo s (wg_of L u))" using so u fl pco False e unfolding since_ok_def by metis
      then show ?thesis using grow by (metis Un_iff set_append)
    next
      case True
      show ?thesis
      proof (cases "\<exists>sc. i = FLUL1 sc")
        case True
        then obtain sc where "i = FLUL1 sc" by blast
        then show ?thesis using fq \<open>u = t\<close> wg_in_scope[OF w0] by (simp add: w0_def)
      next
        case notf: False
        have "flushed xs (Suc n)" using fl True pc' by (simp add: xs_def)
        then have fn: "flushed xs n" "quiet i" using flushed_Suc notf by (auto simp: i_def)
        have "done_ev S P s e"
        proof (rule ccontr)
          assume "\<not> done_ev S P s e"
          then have "\<exists>v r. i = ST v y \<or> i = INCL1 r y" using new e by blast
          then show False using fn(2) by auto
        qed
        then have "e \<in> pend1 L S P s g w0 y" using old e True by (simp add: w0_def)
        then have "Flush t \<in> set (l1_fifo s w0)" using so t fn(1) e True unfolding since_ok_def xs_def n_def w0_def by metis
        then show ?thesis using nf by simp
      qed
    qed
  qed
  have ww': "ww_ok S P s' g'"
    unfolding ww_ok_def
  proof (intro allI impI)
    fix e e' assume a: "(e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<and> done_ev S P s' e'"
    show "gt g' e < gt g' e' \<and> (ga2 g' e' \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None \<and> the (ga2 g' e) \<le> the (ga2 g' e'))
      \<and> (ga3 g' e' \<noteq> None \<longrightarrow> ga3 g' e \<noteq> None \<and> the (ga3 g' e) \<le> the (ga3 g' e'))"
    proof (cases "done_ev S P s e'")
      case True
      then have "done_ev S P s e" using po_done a by blast
      then have eq: "gt g' e = gt g e" "ga2 g' e = ga2 g e" "ga3 g' e = ga3 g e"
          "gt g' e' = gt g e'" "ga2 g' e' = ga2 g e'" "ga3 g' e' = ga3 g e'"
        using gs1 True by blast+
      have "gt g e < gt g e' \<and> (ga2 g e' \<noteq> None \<longrightarrow> ga2 g e \<noteq> None \<and> the (ga2 g e) \<le> the (ga2 g e'))
          \<and> (ga3 g e' \<noteq> None \<longrightarrow> ga3 g e \<noteq> None \<and> the (ga3 g e) \<le> the (ga3 g e'))"
        using ww a True unfolding ww_ok_def by blast
      then show ?thesis unfolding eq .
    next
      case False
      have th: "sthread e' = Some t" using new_thread[OF pco _ False] a by blast
      \<comment> \<open>e' is the step's own write; e, a write before it, was performed before the step\<close>
      obtain k' p' where e': "e' = Acc t k' p'" using th by (cases e') auto
      obtain k p where e: "e = Acc t k p" "k < k' \<or> (k = k' \<and> \<not> p \<and> p')" using a e' by (auto simp: src_po_def)
      have "k \<noteq> k'"
      proof
        assume "k = k'"
        then have "wr (ins P t k) False" "wr (ins P t k) True" using a e e' by auto
        then show False by (cases "(ins P t k, True)" rule: wr.cases) auto
      qed
      then have kk: "k < k'" using e(2) by simp
      have "kd S P s' t \<le> Suc (kd S P s t)"
        using filter_take_Suc[OF nl, of visible] pc' by (simp add: kd_def xs_def n_def)
      then have "k' \<le> kd S P s t" using a e' by simp
      then have de: "done_ev S P s e" using kk e by simp
      obtain y where y: "sloc P e = Some y" using a wr_loc by blast
      have wxe: "wx S P s y e" using wr_wx a de y by blast
      have ni: "\<forall>z. e \<noteq> Init z" using e by simp
      have tp: "gt g e < clk g" "\<forall>m. ga2 g e = Some m \<longrightarrow> m < clk g" using time_perf[OF ti wxe ni] by blast+
      have n2: "clk g < gt g' e'" "ga3 g' e' = None" using gs2 a False by blast+
      have "ga2 g' e' \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None \<and> the (ga2 g' e) \<le> the (ga2 g' e')"
      proof
        assume "ga2 g' e' \<noteq> None"
        moreover have "clk g < gt g' e' \<and> gt g' e' < clk g' \<and> ga3 g' e' = None
          \<and> ((ga2 g' e' = None \<and> (\<exists>y v r. sloc P e' = Some y \<and> (i = ST v y \<or> i = INCL1 r y)))
             \<or> (ga2 g' e' = Some (gt g' e') \<and> (\<exists>r x. i = INCL2 r x)))"
          using gs2 a False by blast
        ultimately obtain r x where i2: "ga2 g' e' = Some (gt g' e')" "i = INCL2 r x" by auto
        have "flushed xs n" using compiled_flushed[OF rows(1,2,4) ops] nl i2(2) by (simp add: xs i_def)
        have "ga2 g e \<noteq> None"
        proof
          assume "ga2 g e = None"
          then have "e \<in> pend1 L S P s g w0 y" using wxe e by (simp add: pend1_def w0_def)
          then have "Flush t \<in> set (l1_fifo s w0)"
            using so t \<open>flushed xs n\<close> e unfolding since_ok_def xs_def n_def w0_def by fastforce
          then show False using nf by simp
        qed
        then show "ga2 g' e \<noteq> None \<and> the (ga2 g' e) \<le> the (ga2 g' e')"
          using gs1 de tp(2) i2(1) n2(1) by fastforce
      qed
      then show ?thesis using gs1 de tp(1) n2 by simp
    qed
  qed
  show ?thesis using gi fo' so' ww' by (auto simp: oinv_def)
qed

lemma oinv_reachable:
  assumes "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
  shows "\<exists>g. ginv L S P s g \<and> oinv L S P s g"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using assms(1) by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    then show ?case using ginv_initial oinv_initial by blast
  next
    case (step s1 s2)
    then obtain g where g: "ginv L S P s1 g" "oinv L S P s1 g" by blast
    have "threads (compile S P) = src_threads P" by (simp add: compile_def)
    then consider (thr) t where "t \<in> src_threads P" "step_thread L (compile S P) t s1 = Some s2"
      | (env) "s2 \<in> env_step L wb s1"
      using step.hyps(2) unfolding step_def by blast
    then show ?case
    proof cases
      case thr
      then show ?thesis using oinv_thread[OF g thr rows wp] by blast
    next
      case env
      then show ?thesis using oinv_env[OF g] by blast
    qed
  qed
qed

section \<open>The theorems\<close>

text \<open>A thread that has flushed its L1 and waited for its marker, with
  only quiet instructions since, has no write waiting in its L1: each has
  reached its device's L2 ([RSP15] sec. 5.2's FLUSH).\<close>
theorem flushed_reached_l2:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
    and t: "t \<in> src_threads P" and fl: "flushed (instrs (compile S P) t) (pc s t)" and nu: "\<not> unflushed L s t"
  shows "\<exists>g. ginv L S P s g \<and> (\<forall>x e. wx S P s x e \<and> sthread e = Some t \<longrightarrow> ga2 g e \<noteq> None)"
proof -
  obtain g where g: "ginv L S P s g" "oinv L S P s g" using oinv_reachable[OF reach rows wp] by blast
  have w0: "wg_of L t \<in> wgs L" using wp t by (simp add: well_placed_def)
  have "ga2 g e \<noteq> None" if "wx S P s x e" "sthread e = Some t" for x e
  proof
    assume "ga2 g e = None"
    then have "e \<in> pend1 L S P s g (wg_of L t) x" using that by (cases e) (auto simp: pend1_def)
    then have "Flush t \<in> set (l1_fifo s (wg_of L t))" using g(2) t fl that(2) by (auto simp: oinv_def since_ok_def)
    then show False using nu w0 by (auto simp: unflushed_def)
  qed
  then show ?thesis using g(1) by blast
qed

text \<open>For a scheme whose rows have one data instruction each and whose
  increments at the L2 are flushed (rsp-new's), every final state the
  machine reaches shows the outcome of a candidate (Hrf_Exhibit's) whose
  coherence orders each thread's writes of a location in program order:
  for every program of any length and thread count, on every layout, under
  both write-back policies, racy or not.\<close>
theorem machine_candidate_po_co:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> (\<forall>e e'. (e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<longrightarrow> (e, e') \<in> run_co P g)"
proof -
  obtain g where g: "ginv L S P s g" "oinv L S P s g" using oinv_reachable[OF reach rows wp] by blast
  note ff = final_facts[OF g(1) fin wp rows(1-3)]
  have ti: "time_inv S P s g" using g(1) by (simp add: ginv_def)
  have "(e, e') \<in> run_co P g" if a: "(e, e') \<in> src_po P" "is_wr P e" "is_wr P e'" "sloc P e = sloc P e'" for e e'
  proof -
    obtain x where x: "sloc P e' = Some x" using a(3) wr_loc by blast
    have ev: "is_ev P e'" using a(3) by (cases e') auto
    have de: "done_ev S P s e'" using ff(2)[OF ev] .
    have ni: "\<forall>z. e \<noteq> Init z" "\<forall>z. e' \<noteq> Init z" using po_acc[OF a(1)] by blast+
    have w3: "wx S P s x e \<and> ga3 g e \<noteq> None" "wx S P s x e' \<and> ga3 g e' \<noteq> None"
      using ff(3) a(2,3,4) x by metis+
    have w2: "ga2 g e' \<noteq> None" using time_perf[OF ti conjunct1[OF w3(2)] ni(2)] w3(2) by blast
    have o: "gt g e < gt g e' \<and> (ga2 g e' \<noteq> None \<longrightarrow> ga2 g e \<noteq> None \<and> the (ga2 g e) \<le> the (ga2 g e'))
       \<and> (ga3 g e' \<noteq> None \<longrightarrow> ga3 g e \<noteq> None \<and> the (ga3 g e) \<le> the (ga3 g e'))"
      using g(2) a de unfolding oinv_def ww_ok_def by blast
    then have "klt (key g e) (key g e')" using w2 w3 by (auto simp: klt_def key_def)
    then show ?thesis using a ni(2) by (simp add: run_co_def)
  qed
  then show ?thesis using final_candidate[OF rows(1-3) wp g(1) fin] by blast
qed

corollary machine_outcomes_po_co:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "well_placed L P"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob
     \<and> (\<forall>e e'. (e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<longrightarrow> (e, e') \<in> co)}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
    "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  then show "ob \<in> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob
     \<and> (\<forall>e e'. (e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<longrightarrow> (e, e') \<in> co)}"
    using machine_candidate_po_co[OF assms s(1,2)] by blast
qed

end
