(* hrf base theory: program order in the coherence a machine run exhibits
   (step (3) of docs/isabelle.md's plan for [RSP15]'s soundness theorem,
   its first part). A FLUSH marker leaves its fifo only after the addresses
   enqueued before it ([RSP15] sec. 5.2), so a thread that has flushed its
   L1 and waited has no write left in it. For a scheme whose increments at
   the L2 are preceded by such a flush (rsp-new's are), a thread's writes
   of a location reach the L2 and memory in program order, and the
   coherence order Hrf_Exhibit exhibits orders them as the program does;
   where the increments are also followed by an invalidation of the L1
   (rsp-new's are), a thread's read reads from its own last write of the
   location or from a coherence-later one. For every program of any length
   and thread count, on every layout, under both write-back policies,
   racy or not. Written by hand, every proof complete. *)
theory Hrf_Coherence
  imports Hrf_Exhibit
begin

section \<open>Flushes and the rows that need them\<close>

text \<open>Position n of a thread's code comes after a flush of its L1 with
  nothing but quiet instructions (flushes, invalidations, locks) between.\<close>
definition flushed :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "flushed xs n \<longleftrightarrow> (\<exists>j < n. (\<exists>sc. xs ! j = FLUL1 sc) \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m)))"

text \<open>flq D f xs: in xs every instruction D picks comes after a flush of
  the L1 with only quiet instructions (flushes, invalidations, locks)
  between; f: the start of xs is such a place.\<close>
fun flq :: "(instr \<Rightarrow> bool) \<Rightarrow> bool \<Rightarrow> instr list \<Rightarrow> bool" where
  "flq D f [] = True"
| "flq D f (i # xs) = (case i of
      FLUL1 _ \<Rightarrow> flq D True xs
    | _ \<Rightarrow> (if D i then f \<and> flq D False xs else flq D (f \<and> quiet i) xs))"

fun incl2 :: "instr \<Rightarrow> bool" where
  "incl2 (INCL2 _ _) = True"
| "incl2 _ = False"

text \<open>fl_seq f xs: every increment at the L2 is such.\<close>
abbreviation fl_seq :: "bool \<Rightarrow> instr list \<Rightarrow> bool" where
  "fl_seq \<equiv> flq incl2"

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

lemma flq_mono: "flq D False xs \<Longrightarrow> flq D f xs"
  by (induction xs arbitrary: f) (auto split: instr.splits)

lemma flq_append: "flq D f xs \<Longrightarrow> flq D False ys \<Longrightarrow> flq D f (xs @ ys)"
  by (induction xs arbitrary: f) (auto split: instr.splits intro: flq_mono)

lemma flq_none: "\<forall>i \<in> set xs. \<not> D i \<Longrightarrow> flq D f xs"
  by (induction xs arbitrary: f) (auto split: instr.splits)

lemma fl_seq_mono: "fl_seq False xs \<Longrightarrow> fl_seq f xs"
  by (rule flq_mono)

lemma fl_seq_append: "fl_seq f xs \<Longrightarrow> fl_seq False ys \<Longrightarrow> fl_seq f (xs @ ys)"
  by (rule flq_append)

lemma fl_seq_no_incl2: "\<forall>r x. INCL2 r x \<notin> set xs \<Longrightarrow> fl_seq f xs"
proof (rule flq_none)
  assume "\<forall>r x. INCL2 r x \<notin> set xs"
  then show "\<forall>i \<in> set xs. \<not> incl2 i" by (metis incl2.elims(2))
qed

text \<open>In such code every instruction D picks (a flush not among them) is
  at a flushed position.\<close>
lemma flq_flushed: "flq D f xs \<Longrightarrow> n < length xs \<Longrightarrow> D (xs ! n) \<Longrightarrow> (\<forall>sc. \<not> D (FLUL1 sc))
    \<Longrightarrow> flushed xs n \<or> (f \<and> (\<forall>m < n. quiet (xs ! m)))"
proof (induction xs arbitrary: f n)
  case Nil
  then show ?case by simp
next
  case (Cons i xs)
  show ?case
  proof (cases n)
    case 0
    then show ?thesis using Cons.prems by (cases i) auto
  next
    case (Suc n')
    have n': "n' < length xs" "D (xs ! n')" using Cons.prems(2,3) Suc by simp_all
    have sh: "flushed (i # xs) n" if "flushed xs n'"
      using flushed_append[OF that, of "[i]"] Suc by simp
    show ?thesis
    proof (cases "\<exists>sc. i = FLUL1 sc")
      case True
      then obtain sc where i: "i = FLUL1 sc" by blast
      then have "flushed xs n' \<or> (\<forall>m < n'. quiet (xs ! m))" using Cons.IH[of True n'] Cons.prems(1,4) n' by simp
      moreover have "flushed (i # xs) n" if "\<forall>m < n'. quiet (xs ! m)"
        unfolding flushed_def using i that Suc
        by (intro exI[of _ 0]) (auto simp: nth_Cons' split: if_splits)
      ultimately show ?thesis using sh by blast
    next
      case nf: False
      then have "flq D (f \<and> quiet i) xs \<or> flq D False xs"
        using Cons.prems(1) by (cases i) (auto split: if_splits)
      then have "flushed xs n' \<or> (f \<and> quiet i \<and> (\<forall>m < n'. quiet (xs ! m)))"
        using Cons.IH n' Cons.prems(4) by blast
      moreover have "\<forall>m < n. quiet ((i # xs) ! m)" if "quiet i" "\<forall>m < n'. quiet (xs ! m)"
        using that Suc by (auto simp: nth_Cons' less_Suc_eq_0_disj)
      ultimately show ?thesis using sh by blast
    qed
  qed
qed

lemma fl_seq_flushed: "fl_seq f xs \<Longrightarrow> n < length xs \<Longrightarrow> xs ! n = INCL2 r x
    \<Longrightarrow> flushed xs n \<or> (f \<and> (\<forall>m < n. quiet (xs ! m)))"
  using flq_flushed[of incl2 f xs n] by simp

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

text \<open>The writes thread t has seen: its own, and those its performed reads
  read from.\<close>
definition seen :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> tid \<Rightarrow> sev \<Rightarrow> bool" where
  "seen S P s g t e \<longleftrightarrow> sthread e = Some t
     \<or> (\<exists>r. is_rd P r \<and> done_ev S P s r \<and> sthread r = Some t \<and> grf g r = e)"

lemma seen_same: "pc s' = pc s \<Longrightarrow> grf g' = grf g \<Longrightarrow> seen S P s' g' = seen S P s g"
proof -
  assume a: "pc s' = pc s" "grf g' = grf g"
  show ?thesis unfolding seen_def[abs_def] done_same[OF a(1)] a(2) ..
qed

text \<open>The write an access observes: the one a read reads from, a write itself.\<close>
definition ob :: "src_program \<Rightarrow> ghost \<Rightarrow> sev \<Rightarrow> sev" where
  "ob P g a = (if is_rd P a then grf g a else a)"

text \<open>Synchronisation as the machine exhibits it ([HRF14] sec. 4: an atomic
  read that reads an atomic write synchronises with it when each is in the
  other's scope): a read of an atomic that reads an atomic write of its own
  work-group, or of another work-group of its device with both at device
  scope or wider, or with the write or the read a remote one ([RSP15]
  sec. 5.1: promotion, the remote operation's scope holding the other), or
  of any device with both at all-devices scope.\<close>
definition atomic_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "atomic_ev P e \<longleftrightarrow> (case e of Init x \<Rightarrow> False | Acc t i p \<Rightarrow> op_scope (ins P t i) \<noteq> NonAtomic)"

definition wide_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "wide_ev P e \<longleftrightarrow> (case e of Init x \<Rightarrow> False | Acc t i p \<Rightarrow> op_scope (ins P t i) \<in> {Device, AllDevices})"

definition remote_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "remote_ev P e \<longleftrightarrow> (case e of Init x \<Rightarrow> False | Acc t i p \<Rightarrow> op_remote (ins P t i))"

definition sys_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "sys_ev P e \<longleftrightarrow> (case e of Init x \<Rightarrow> False | Acc t i p \<Rightarrow> op_scope (ins P t i) = AllDevices)"

definition swm :: "layout \<Rightarrow> src_program \<Rightarrow> ghost \<Rightarrow> sev rel" where
  "swm L P g = {(w, r). is_rd P r \<and> grf g r = w \<and> atomic_ev P w \<and> atomic_ev P r
     \<and> (ewg L w = ewg L r \<or> ((wide_ev P w \<and> wide_ev P r \<or> remote_ev P w \<or> remote_ev P r)
          \<and> map_option (dev_of L) (ewg L w) = map_option (dev_of L) (ewg L r)) \<or> (sys_ev P w \<and> sys_ev P r))}"

text \<open>Happens-before of the exhibited candidate: program order and that
  synchronisation, transitively ([HRF14] sec. 4).\<close>
definition hbm :: "layout \<Rightarrow> src_program \<Rightarrow> ghost \<Rightarrow> sev rel" where
  "hbm L P g = (src_po P \<union> swm L P g)\<^sup>+"

text \<open>The writes thread t knows: its own, and those observed by the
  performed accesses up to its own performed ones in happens-before (its
  reads' writes among them: every write it has seen).\<close>
definition knows :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> tid \<Rightarrow> sev \<Rightarrow> bool" where
  "knows L S P s g t e \<longleftrightarrow> sthread e = Some t
     \<or> (\<exists>a c. (is_wr P a \<or> is_rd P a) \<and> done_ev S P s c \<and> sthread c = Some t
          \<and> (a = c \<or> (a, c) \<in> hbm L P g) \<and> ob P g a = e)"

lemma seen_knows: "seen S P s g t e \<Longrightarrow> knows L S P s g t e"
proof -
  assume "seen S P s g t e"
  then consider "sthread e = Some t" | r where "is_rd P r" "done_ev S P s r" "sthread r = Some t" "grf g r = e"
    unfolding seen_def by blast
  then show ?thesis
  proof cases
    case 1
    then show ?thesis by (simp add: knows_def)
  next
    case 2
    then show ?thesis unfolding knows_def by (intro disjI2, intro exI[of _ r] conjI) (simp_all add: ob_def)
  qed
qed

lemma knows_same: "pc s' = pc s \<Longrightarrow> grf g' = grf g \<Longrightarrow> knows L S P s' g' = knows L S P s g"
proof -
  assume a: "pc s' = pc s" "grf g' = grf g"
  have "hbm L P g' = hbm L P g" unfolding hbm_def swm_def a(2) ..
  moreover have "ob P g' = ob P g" unfolding ob_def[abs_def] a(2) ..
  ultimately show ?thesis unfolding knows_def[abs_def] done_same[OF a(1)] by simp
qed

lemma knows_kd: "done_ev S P s' = done_ev S P s \<Longrightarrow> grf g' = grf g \<Longrightarrow> knows L S P s' g' = knows L S P s g"
proof -
  assume a: "done_ev S P s' = done_ev S P s" "grf g' = grf g"
  have "hbm L P g' = hbm L P g" unfolding hbm_def swm_def a(2) ..
  moreover have "ob P g' = ob P g" unfolding ob_def[abs_def] a(2) ..
  ultimately show ?thesis unfolding knows_def[abs_def] a(1) by simp
qed

lemma po_done: "(e, e') \<in> src_po P \<Longrightarrow> done_ev S P s e' \<Longrightarrow> done_ev S P s e"
  by (auto simp: src_po_def)

text \<open>An edge of happens-before into a performed event comes from one.\<close>
lemma hbm_edge_done:
  assumes "ev_inv S P s g" "(a, b) \<in> src_po P \<union> swm L P g" "done_ev S P s b"
  shows "done_ev S P s a"
  using assms po_done ev_parts(2)[OF assms(1)] by (auto simp: swm_def)

lemma hbm_done:
  assumes ei: "ev_inv S P s g" and h: "(a, c) \<in> hbm L P g" and d: "done_ev S P s c"
  shows "done_ev S P s a"
proof -
  have "done_ev S P s c \<longrightarrow> done_ev S P s a" using h[unfolded hbm_def]
  proof (induction rule: trancl_induct)
    case (base b)
    then show ?case using hbm_edge_done[OF ei] by blast
  next
    case (step b c)
    then show ?case using hbm_edge_done[OF ei] by blast
  qed
  then show ?thesis using d by blast
qed

text \<open>A step that keeps the reads-from of the performed reads keeps
  happens-before into the performed events.\<close>
lemma hbm_keep:
  assumes ei: "ev_inv S P s g" and gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r"
    and h: "(a, c) \<in> hbm L P g'" and d: "done_ev S P s c"
  shows "(a, c) \<in> hbm L P g"
proof -
  have e: "(b, c') \<in> src_po P \<union> swm L P g \<and> done_ev S P s b"
    if "(b, c') \<in> src_po P \<union> swm L P g'" "done_ev S P s c'" for b c'
  proof -
    have "(b, c') \<in> src_po P \<union> swm L P g" using that gr by (auto simp: swm_def)
    then show ?thesis using hbm_edge_done[OF ei] that(2) by blast
  qed
  have "done_ev S P s c \<longrightarrow> (a, c) \<in> hbm L P g" using h[unfolded hbm_def]
  proof (induction rule: trancl_induct)
    case (base b)
    then show ?case using e unfolding hbm_def by blast
  next
    case (step b c)
    then show ?case using e unfolding hbm_def by (meson trancl.trancl_into_trancl)
  qed
  then show ?thesis using d by blast
qed

lemma knows_old: "ev_inv S P s g \<Longrightarrow> knows L S P s g u e \<Longrightarrow> sthread e = Some u \<or> done_ev S P s e"
proof -
  assume ei: "ev_inv S P s g" and k: "knows L S P s g u e"
  show ?thesis
  proof (cases "sthread e = Some u")
    case False
    then obtain a c where ac: "done_ev S P s c" "a = c \<or> (a, c) \<in> hbm L P g" "ob P g a = e"
      using k unfolding knows_def by blast
    have "done_ev S P s a" using ac(1,2) hbm_done[OF ei] by blast
    then show ?thesis using ac(3) ev_parts(2)[OF ei] by (auto simp: ob_def)
  qed simp
qed

text \<open>A thread step of t: no other thread learns anything.\<close>
lemma knows_new:
  assumes ei: "ev_inv S P s g" and gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r"
    and dn: "\<forall>e. sthread e \<noteq> Some t \<longrightarrow> done_ev S P s' e \<longrightarrow> done_ev S P s e"
    and k: "knows L S P s' g' u e" and ut: "u \<noteq> t"
  shows "knows L S P s g u e"
proof (cases "sthread e = Some u")
  case False
  then obtain a c where ac: "is_wr P a \<or> is_rd P a" "done_ev S P s' c" "sthread c = Some u"
      "a = c \<or> (a, c) \<in> hbm L P g'" "ob P g' a = e"
    using k unfolding knows_def by blast
  have dc: "done_ev S P s c" using dn ac(2,3) ut by auto
  have h: "a = c \<or> (a, c) \<in> hbm L P g" using ac(4) hbm_keep[OF ei gr _ dc] by blast
  have "done_ev S P s a" using h hbm_done[OF ei _ dc] dc by blast
  then have "ob P g a = e" using ac(5) gr by (auto simp: ob_def split: if_splits)
  then show ?thesis unfolding knows_def using ac(1,3) dc h by blast
qed (simp add: knows_def)

text \<open>[RSP15] sec. 5.2: a FLUSH marker leaves an L1's fifo only after the
  addresses enqueued before it. A write waiting in an L1 has its address in
  the L1's fifo ahead of every marker of each thread that has seen it (a
  thread's instructions wait while its marker is in a fifo, so it sees
  nothing then).\<close>
definition fifo_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "fifo_ok L S P s g \<longleftrightarrow> (\<forall>w x e. e \<in> pend1 L S P s g w x \<longrightarrow> (\<exists>i < length (l1_fifo s w).
     l1_fifo s w ! i = Addr x \<and> (\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u)))"

text \<open>From a flush of its L1 until its next visible instruction, the writes
  a thread has seen that still wait in its L1 wait ahead of its marker.\<close>
definition since_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "since_ok L S P s g \<longleftrightarrow> (\<forall>t \<in> src_threads P. flushed (instrs (compile S P) t) (pc s t) \<longrightarrow>
     (\<forall>x e. e \<in> pend1 L S P s g (wg_of L t) x \<and> knows L S P s g t e \<longrightarrow> Flush t \<in> set (l1_fifo s (wg_of L t))))"

text \<open>A thread's writes of a location are performed, reach the L2 and reach
  memory in program order.\<close>
definition ww_ok :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "ww_ok S P s g \<longleftrightarrow> (\<forall>e e'. (e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<and> done_ev S P s e' \<longrightarrow>
     gt g e < gt g e' \<and> (ga2 g e' \<noteq> None \<longrightarrow> ga2 g e \<noteq> None \<and> the (ga2 g e) \<le> the (ga2 g e'))
     \<and> (ga3 g e' \<noteq> None \<longrightarrow> ga3 g e \<noteq> None \<and> the (ga3 g e) \<le> the (ga3 g e')))"

definition oinv :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "oinv L S P s g \<longleftrightarrow> fifo_ok L S P s g \<and> since_ok L S P s g \<and> ww_ok S P s g"

lemma oinv_initial: "oinv L S P (initial (src_init P)) (ghost0 P)"
proof -
  have "pend1 L S P (initial (src_init P)) (ghost0 P) w x = {}" for w x
    by (auto simp: pend1_def wx_initial)
  moreover have "\<not> (done_ev S P (initial (src_init P)) e' \<and> (e, e') \<in> src_po P)" for e e'
    by (auto simp: src_po_def)
  ultimately show ?thesis by (auto simp: oinv_def fifo_ok_def since_ok_def ww_ok_def)
qed

section \<open>Environment steps: what they do\<close>

text \<open>A step that keeps the L1 fifos or pops the head of one, and lets no
  write start waiting in an L1 (none that waits behind the popped address).\<close>
lemma fs_mono:
  assumes fo: "fifo_ok L S P s g" and so: "since_ok L S P s g" and pc: "pc s' = pc s" and gr: "grf g' = grf g"
    and sub: "\<forall>w y. pend1 L S P s' g' w y \<subseteq> pend1 L S P s g w y"
    and q: "\<forall>w. l1_fifo s' w = l1_fifo s w \<or> (\<exists>e0. l1_fifo s w = e0 # l1_fifo s' w
      \<and> (\<forall>y. e0 = Addr y \<longrightarrow> pend1 L S P s' g' w y = {}))"
  shows "fifo_ok L S P s' g' \<and> since_ok L S P s' g'"
proof
  show "fifo_ok L S P s' g'"
    unfolding fifo_ok_def knows_same[OF pc gr]
  proof (intro allI impI)
    fix w y e assume e': "e \<in> pend1 L S P s' g' w y"
    then have e: "e \<in> pend1 L S P s g w y" using sub by blast
    obtain i where i: "i < length (l1_fifo s w)" "l1_fifo s w ! i = Addr y"
      "\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u"
      using fo e unfolding fifo_ok_def by blast
    show "\<exists>i < length (l1_fifo s' w). l1_fifo s' w ! i = Addr y
        \<and> (\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l1_fifo s' w ! j \<noteq> Flush u)"
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
        fix j u assume "j < i'" "knows L S P s g u e"
        then show "l1_fifo s' w ! j \<noteq> Flush u" using i(3) i' e0(1) by (metis Suc_mono nth_Cons_Suc)
      qed
    qed
  qed
  show "since_ok L S P s' g'"
    unfolding since_ok_def knows_same[OF pc gr]
  proof (intro ballI impI allI)
    fix t y e assume t: "t \<in> src_threads P" and fl: "flushed (instrs (compile S P) t) (pc s' t)"
      and e': "e \<in> pend1 L S P s' g' (wg_of L t) y \<and> knows L S P s g t e"
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
        "\<forall>j < i. \<forall>u. knows L S P s g u e \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u"
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

lemma dequeue_l2_pop:
  assumes "dequeue_l2 d s = Some s'"
  obtains e0 rest where "l2_fifo s d = e0 # rest" "s' = s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr>"
      "\<forall>y. e0 = Addr y \<longrightarrow> \<not> dirty (l2 s d y)"
  | rest y where "l2_fifo s d = Addr y # rest" "dirty (l2 s d y)"
      "s' = write_back_l2 d y (s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr>)"
  using assms by (auto simp: dequeue_l2_def Let_def split: list.splits fifo_el.splits if_splits)

lemma wb_fields:
  "l1_fifo (write_back_l1 L w x s) = l1_fifo s" "pc (write_back_l1 L w x s) = pc s"
  "l1_fifo (write_back_l2 d x s) = l1_fifo s" "pc (write_back_l2 d x s) = pc s"
  by (simp_all add: write_back_l1_def write_back_l2_def enq_l2_def set_l2_def set_l1_def split: option.splits prod.splits)

text \<open>Steps that change no time of the ghost and no L1 fifo keep it.\<close>
lemma oinv_keep:
  assumes oi: "oinv L S P s g" and pc: "pc s1 = pc s" and q: "l1_fifo s1 = l1_fifo s"
    and gh: "gt g1 = gt g" "ga2 g1 = ga2 g" "ga3 g1 = ga3 g" "grf g1 = grf g"
  shows "oinv L S P s1 g1"
proof -
  have e1: "pend1 L S P s1 g1 = pend1 L S P s g"
    using pend_same[OF pc] gh by (simp add: pend1_def[abs_def])
  have e2: "done_ev S P s1 = done_ev S P s" using done_same[OF pc] .
  have e3: "knows L S P s1 g1 = knows L S P s g" using knows_same[OF pc gh(4)] .
  show ?thesis using oi unfolding oinv_def fifo_ok_def since_ok_def ww_ok_def e1 e2 e3 pc q gh(1-3) .
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
    by (rule fs_mono[OF _ _ pc]) (use oi pe q in \<open>auto simp: oinv_def g'_def wb1g_def wb2g_def\<close>)
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
    by (rule fs_mono[OF _ _ pc]) (use oi pe q in \<open>auto simp: oinv_def g'_def wb1g_def wb2g_def\<close>)
  have "ww_ok S P s g'" using ww_wb2 inv oi by (simp add: ginv_def oinv_def g'_def)
  then have "ww_ok S P s1 g'" unfolding ww_ok_def done_same[OF pc] .
  then show ?thesis using fs by (simp add: oinv_def g'_def)
qed

text \<open>An environment step and the ghost Hrf_Exhibit updates with it, case by
  case: a fetch into an L1 or the L2, a fifo's head popped, a line written
  back (from a fifo's head or in any order), an eviction.\<close>
lemma env_ghost_cases:
  assumes inv: "ginv L S P s g" and st: "s' \<in> env_step L wb s"
  obtains (fetch1) w x where "ginv L S P s' (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
      "s' = set_l1 w x (Some (val_of (l2 s (dev_of L w) x), Clean, Valid)) s"
      "l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid)" "readable (l2 s (dev_of L w) x)"
  | (fetch2) d x where "ginv L S P s' (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
      "s' = set_l2 d x (Some (mem s x, Clean, Valid)) s" "\<not> dirty (l2 s d x)"
  | (pop1) w e0 rest where "ginv L S P s' g" "l1_fifo s w = e0 # rest" "s' = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>"
      "\<forall>y. e0 = Addr y \<longrightarrow> \<not> dirty (l1 s w y)"
  | (wb1) w x q where "ginv L S P s' (wb1g L S P s g w x)" "dirty (l1 s w x)" "s' = write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)"
      "\<forall>v. q v = l1_fifo s v \<or> (v = w \<and> l1_fifo s w = Addr x # q w)"
  | (pop2) q d e0 rest where "ginv L S P s' g" "s' = s\<lparr>l2_fifo := q\<rparr>" "l2_fifo s d = e0 # rest"
      "q = (l2_fifo s)(d := rest)" "\<forall>y. e0 = Addr y \<longrightarrow> \<not> dirty (l2 s d y)"
  | (wb2) d x q where "ginv L S P s' (wb2g L S P s g d x)" "dirty (l2 s d x)" "s' = write_back_l2 d x (s\<lparr>l2_fifo := q\<rparr>)"
      "\<forall>v. q v = l2_fifo s v \<or> (v = d \<and> l2_fifo s d = Addr x # q d)"
  | (evict1) w x where "ginv L S P s' g" "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
  | (evict2) d x where "ginv L S P s' g" "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
proof -
  have fifo2: "ginv L S P (s\<lparr>l2_fifo := q\<rparr>) g" for q
    using ginv_cong[of "s\<lparr>l2_fifo := q\<rparr>" s] inv by simp
  from env_step_cases[OF st] show ?thesis
  proof (elim disjE exE conjE)
    fix w x assume f: "fetch_l1 L w x s = Some s'"
    then show ?thesis using fetch1_inv[OF inv f] that(1) by (auto simp: fetch_l1_def split: if_splits)
  next
    fix d x assume f: "fetch_l2 d x s = Some s'"
    have "\<not> dirty (l2 s d x)" "s' = set_l2 d x (Some (mem s x, Clean, Valid)) s"
      using f by (auto simp: fetch_l2_def dirty_def split: if_splits option.splits hygiene.splits freshness.splits)
        (metis freshness.exhaust)
    then show ?thesis using fetch2_inv[OF inv f] that(2) by blast
  next
    fix w assume dq: "dequeue_l1 L w s = Some s'"
    then show ?thesis
    proof (cases rule: dequeue_l1_pop)
      case (1 e0 rest)
      have "ginv L S P s' g" using ginv_cong[of s' s] inv 1(2) by simp
      then show ?thesis using that(3) 1 by blast
    next
      case (2 rest y)
      define s1 where "s1 = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>"
      have g1: "ginv L S P s1 g" using ginv_cong[of s1 s] inv by (simp add: s1_def)
      have d1: "dirty (l1 s1 w y)" using 2(2) by (simp add: s1_def)
      have "wb1g L S P s1 g w y = wb1g L S P s g w y"
        using pend_same[of s1 s] by (simp add: s1_def wb1g_def)
      then have "ginv L S P s' (wb1g L S P s g w y)" using wb1_inv[OF g1 d1] 2(3) by (simp add: s1_def)
      moreover have "\<forall>v. ((l1_fifo s)(w := rest)) v = l1_fifo s v \<or> (v = w \<and> l1_fifo s w = Addr y # ((l1_fifo s)(w := rest)) w)"
        using 2(1) by simp
      ultimately show ?thesis using that(4) 2(2,3) by blast
    qed
  next
    fix d assume dq: "dequeue_l2 d s = Some s'"
    then show ?thesis
    proof (cases rule: dequeue_l2_pop)
      case (1 e0 rest)
      then show ?thesis using fifo2[of "(l2_fifo s)(d := rest)"] that(5)[of "(l2_fifo s)(d := rest)" d e0 rest] by blast
    next
      case (2 rest x)
      define q where "q = (l2_fifo s)(d := rest)"
      have d1: "dirty (l2 (s\<lparr>l2_fifo := q\<rparr>) d x)" using 2(2) by simp
      have "wb2g L S P (s\<lparr>l2_fifo := q\<rparr>) g d x = wb2g L S P s g d x"
        using pend_same[of "s\<lparr>l2_fifo := q\<rparr>" s] by (simp add: wb2g_def)
      moreover have "\<forall>v. q v = l2_fifo s v \<or> (v = d \<and> l2_fifo s d = Addr x # q d)" using 2(1) by (simp add: q_def)
      ultimately show ?thesis using wb2_inv[OF fifo2 d1] 2 that(6)[of d x q] by (auto simp: q_def)
    qed
  next
    fix w x assume d: "dirty (l1 s w x)" "s' = write_back_l1 L w x s"
    then have "s' = write_back_l1 L w x (s\<lparr>l1_fifo := l1_fifo s\<rparr>)" by simp
    then show ?thesis using wb1_inv[OF inv d(1)] d that(4)[of w x "l1_fifo s"] by auto
  next
    fix d x assume d: "dirty (l2 s d x)" "s' = write_back_l2 d x s"
    then have "s' = write_back_l2 d x (s\<lparr>l2_fifo := l2_fifo s\<rparr>)" by simp
    then show ?thesis using wb2_inv[OF inv d(1)] d that(6)[of d x "l2_fifo s"] by auto
  next
    fix w x assume d: "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
    then show ?thesis using evict1_inv[OF inv d(1)] that(7) by blast
  next
    fix d x assume d: "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
    then show ?thesis using evict2_inv[OF inv d(1)] that(8) by blast
  qed
qed

section \<open>Settled coherence\<close>

text \<open>The device a thread event's write starts from.\<close>
definition dv :: "layout \<Rightarrow> sev \<Rightarrow> did option" where
  "dv L e = map_option (dev_of L) (ewg L e)"

text \<open>sb L g e h: whatever the run does next, e ends coherence-before h, or is
  h. Either e has reached memory and h not yet, or later; or both wait in
  one device's L2 (written back together), e arrived first; or e waits in
  an L2 and h in an L1 of that device; or both wait in one L1 (written back
  together), e performed first.\<close>
definition sb :: "layout \<Rightarrow> ghost \<Rightarrow> sev \<Rightarrow> sev \<Rightarrow> bool" where
  "sb L g e h \<longleftrightarrow> e = h
     \<or> (ga3 g e \<noteq> None \<and> (ga3 g h = None \<or> klt (key g e) (key g h)))
     \<or> (ga3 g e = None \<and> ga2 g e \<noteq> None \<and> ga3 g h = None \<and> ga2 g h \<noteq> None \<and> dv L e = dv L h
        \<and> (the (ga2 g e) < the (ga2 g h) \<or> (the (ga2 g e) = the (ga2 g h) \<and> gt g e < gt g h)))
     \<or> (ga3 g e = None \<and> ga2 g e \<noteq> None \<and> ga2 g h = None \<and> dv L e = dv L h)
     \<or> (ga2 g e = None \<and> ga2 g h = None \<and> ewg L e = ewg L h \<and> gt g e < gt g h)"

lemma sb_refl [simp]: "sb L g e e"
  by (simp add: sb_def)

lemma sb_cong:
  assumes "gt g' e = gt g e" "gt g' h = gt g h" "ga2 g' e = ga2 g e" "ga2 g' h = ga2 g h"
    "ga3 g' e = ga3 g e" "ga3 g' h = ga3 g h"
  shows "sb L g' e h = sb L g e h"
  using assms by (simp add: sb_def key_def)

text \<open>Once both have reached memory, sb is the coherence order's.\<close>
lemma sb_final: "sb L g e h \<Longrightarrow> ga3 g e \<noteq> None \<Longrightarrow> ga3 g h \<noteq> None \<Longrightarrow> ga2 g e \<noteq> None \<Longrightarrow> ga2 g h \<noteq> None
    \<Longrightarrow> e = h \<or> klt (key g e) (key g h)"
  by (auto simp: sb_def)

lemma times_lt: "time_inv S P s g \<Longrightarrow> 0 < clk g \<Longrightarrow> wx S P s y e
    \<Longrightarrow> (\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g) \<and> (\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
proof -
  assume a: "time_inv S P s g" "0 < clk g" "wx S P s y e"
  show ?thesis
  proof (cases "\<exists>z. e = Init z")
    case True
    then obtain z where "e = Init z" by blast
    then show ?thesis using a(1,2) by (simp add: time_inv_def)
  next
    case False
    then show ?thesis using time_perf[OF a(1,3)] by blast
  qed
qed

lemma gt_lt: "time_inv S P s g \<Longrightarrow> 0 < clk g \<Longrightarrow> wx S P s y e \<Longrightarrow> gt g e < clk g"
proof (cases "\<exists>z. e = Init z")
  case True
  assume "time_inv S P s g" "0 < clk g"
  then show ?thesis using True by (auto simp: time_inv_def)
next
  case False
  assume "time_inv S P s g" "wx S P s y e"
  then show ?thesis using time_perf False by blast
qed

text \<open>A write-back from an L1 keeps it: the writes waiting in the line reach
  the L2 together, after every write already there.\<close>
lemma sb_wb1:
  assumes ti: "time_inv S P s g" and c: "0 < clk g" and we: "wx S P s y e" and wh: "wx S P s y h"
    and sb: "sb L g e h"
  shows "sb L (wb1g L S P s g w x) e h"
proof -
  define g' where "g' = wb1g L S P s g w x"
  have te: "(\<forall>n. ga2 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
    and th: "ga2 g h = None \<longrightarrow> ga3 g h = None"
    using times_lt[OF ti c we] times_lt[OF ti c wh] by blast+
  have o: "gt g' = gt g" "ga3 g' = ga3 g" by (simp_all add: g'_def wb1g_def)
  have a2: "ga2 g' z = (if z \<in> pend1 L S P s g w x then Some (clk g) else ga2 g z)" for z
    by (simp add: g'_def wb1g_def)
  have pe: "z \<in> pend1 L S P s g w x \<longleftrightarrow> y = x \<and> ewg L z = Some w \<and> ga2 g z = None" if "wx S P s y z" for z
    using that wx_loc_eq by (auto simp: pend1_def)
  have same: "sb L g' e h" if "e \<notin> pend1 L S P s g w x" "h \<notin> pend1 L S P s g w x"
    using sb sb_cong[of g' e g h L] o that a2 by simp
  consider (c1) "e = h" | (c2) "ga3 g e \<noteq> None" "ga3 g h = None \<or> klt (key g e) (key g h)"
    | (c3) "ga2 g e \<noteq> None" "ga2 g h \<noteq> None"
    | (c4) "ga3 g e = None" "ga2 g e \<noteq> None" "ga2 g h = None" "dv L e = dv L h"
    | (c5) "ga2 g e = None" "ga2 g h = None" "ewg L e = ewg L h" "gt g e < gt g h"
    using sb unfolding sb_def by (elim disjE conjE; blast)
  then have "sb L g' e h"
  proof cases
    case c1
    then show ?thesis by simp
  next
    case c2
    then have "e \<notin> pend1 L S P s g w x" using te pe[OF we] by auto
    show ?thesis
    proof (cases "ga3 g h = None")
      case True
      then show ?thesis using c2 \<open>e \<notin> _\<close> o a2 by (simp add: sb_def)
    next
      case False
      then have "h \<notin> pend1 L S P s g w x" using th pe[OF wh] by auto
      then show ?thesis using same \<open>e \<notin> _\<close> by blast
    qed
  next
    case c3
    then have "e \<notin> pend1 L S P s g w x" "h \<notin> pend1 L S P s g w x" using pe[OF we] pe[OF wh] by auto
    then show ?thesis using same by blast
  next
    case c4
    have ne: "e \<notin> pend1 L S P s g w x" using c4 pe[OF we] by auto
    show ?thesis
    proof (cases "h \<in> pend1 L S P s g w x")
      case True
      have "ga2 g' e = ga2 g e" "ga2 g' h = Some (clk g)" "ga3 g' h = None" "ga3 g' e = None"
        using ne True a2 o c4 th by simp_all
      moreover have "the (ga2 g e) < clk g" using te c4 by auto
      ultimately show ?thesis using c4 o by (simp add: sb_def)
    next
      case False
      then show ?thesis using same ne by blast
    qed
  next
    case c5
    have iff: "e \<in> pend1 L S P s g w x \<longleftrightarrow> h \<in> pend1 L S P s g w x" using c5 pe[OF we] pe[OF wh] by auto
    show ?thesis
    proof (cases "h \<in> pend1 L S P s g w x")
      case True
      have "ga2 g' e = Some (clk g)" "ga2 g' h = Some (clk g)" "ga3 g' e = None" "ga3 g' h = None"
        using True iff a2 o c5 te th by simp_all
      moreover have "dv L e = dv L h" using c5 by (simp add: dv_def)
      ultimately show ?thesis using c5 o by (simp add: sb_def)
    next
      case False
      then show ?thesis using same iff by blast
    qed
  qed
  then show ?thesis by (simp add: g'_def)
qed

text \<open>A write-back from an L2 keeps it: the writes waiting in the line reach
  memory together, after every write already there.\<close>
lemma sb_wb2:
  assumes ti: "time_inv S P s g" and c: "0 < clk g" and we: "wx S P s y e" and wh: "wx S P s y h"
    and sb: "sb L g e h"
  shows "sb L (wb2g L S P s g d x) e h"
proof -
  define g' where "g' = wb2g L S P s g d x"
  have te: "(\<forall>n. ga3 g e = Some n \<longrightarrow> n < clk g) \<and> (ga2 g e = None \<longrightarrow> ga3 g e = None)"
    and th: "ga2 g h = None \<longrightarrow> ga3 g h = None"
    using times_lt[OF ti c we] times_lt[OF ti c wh] by blast+
  have o: "gt g' = gt g" "ga2 g' = ga2 g" by (simp_all add: g'_def wb2g_def)
  have a3: "ga3 g' z = (if z \<in> pend2 L S P s g d x then Some (clk g) else ga3 g z)" for z
    by (simp add: g'_def wb2g_def)
  have pe: "z \<in> pend2 L S P s g d x \<longleftrightarrow> y = x \<and> dv L z = Some d \<and> ga2 g z \<noteq> None \<and> ga3 g z = None"
    if "wx S P s y z" for z
    using that wx_loc_eq by (auto simp: pend2_def dv_def)
  have same: "sb L g' e h" if "e \<notin> pend2 L S P s g d x" "h \<notin> pend2 L S P s g d x"
    using sb sb_cong[of g' e g h L] o that a3 by simp
  consider (c1) "e = h" | (c2) "ga3 g e \<noteq> None" "ga3 g h = None \<or> klt (key g e) (key g h)"
    | (c3) "ga3 g e = None" "ga2 g e \<noteq> None" "ga3 g h = None" "ga2 g h \<noteq> None" "dv L e = dv L h"
        "the (ga2 g e) < the (ga2 g h) \<or> (the (ga2 g e) = the (ga2 g h) \<and> gt g e < gt g h)"
    | (c4) "ga3 g e = None" "ga2 g e \<noteq> None" "ga2 g h = None" "dv L e = dv L h"
    | (c5) "ga2 g e = None" "ga2 g h = None"
    using sb unfolding sb_def by (elim disjE conjE; blast)
  then have "sb L g' e h"
  proof cases
    case c1
    then show ?thesis by simp
  next
    case c2
    then have ne: "e \<notin> pend2 L S P s g d x" using pe[OF we] by auto
    show ?thesis
    proof (cases "h \<in> pend2 L S P s g d x")
      case True
      have "ga3 g' e = ga3 g e" "ga3 g' h = Some (clk g)" using ne True a3 by simp_all
      moreover have "the (ga3 g e) < clk g" using te c2 by auto
      ultimately show ?thesis using c2 o by (auto simp: sb_def key_def klt_def)
    next
      case False
      then show ?thesis using same ne by blast
    qed
  next
    case c3
    have iff: "e \<in> pend2 L S P s g d x \<longleftrightarrow> h \<in> pend2 L S P s g d x" using c3 pe[OF we] pe[OF wh] by auto
    show ?thesis
    proof (cases "h \<in> pend2 L S P s g d x")
      case True
      have "ga3 g' e = Some (clk g)" "ga3 g' h = Some (clk g)" using True iff a3 by simp_all
      then show ?thesis using c3 o by (auto simp: sb_def key_def klt_def)
    next
      case False
      then show ?thesis using same iff by blast
    qed
  next
    case c4
    have nh: "h \<notin> pend2 L S P s g d x" using c4 pe[OF wh] by auto
    show ?thesis
    proof (cases "e \<in> pend2 L S P s g d x")
      case True
      have "ga3 g' e = Some (clk g)" "ga3 g' h = None" using True nh a3 c4 th by simp_all
      then show ?thesis by (simp add: sb_def)
    next
      case False
      then show ?thesis using same nh by blast
    qed
  next
    case c5
    then have "e \<notin> pend2 L S P s g d x" "h \<notin> pend2 L S P s g d x" using pe[OF we] pe[OF wh] by auto
    then show ?thesis using same by blast
  qed
  then show ?thesis by (simp add: g'_def)
qed

section \<open>A thread's reads after its writes\<close>

text \<open>iv_seq p xs: in xs every increment at the L2 is followed by an
  invalidation of the L1 before any other visible instruction (and before
  the end); p: an increment waits for its invalidation at the start.\<close>
fun iv_seq :: "bool \<Rightarrow> instr list \<Rightarrow> bool" where
  "iv_seq p [] = (\<not> p)"
| "iv_seq p (i # xs) = (case i of
      INCL2 _ _ \<Rightarrow> \<not> p \<and> iv_seq True xs
    | INVL1 _ \<Rightarrow> iv_seq False xs
    | _ \<Rightarrow> (\<not> p \<or> quiet i) \<and> iv_seq p xs)"

text \<open>Each row that increments at the L2 invalidates the L1 after (rsp-new's
  RMWL2; INVL1 WG): the thread's next read of the L1 does not find a line
  older than its increment.\<close>
definition l2_invalidated :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "l2_invalidated S B \<longleftrightarrow> (\<forall>a \<in> B. \<exists>rw. S a = Some rw \<and> (\<forall>r x. iv_seq False (rw r x)))"

lemma l2_invalidated_empty [simp]: "l2_invalidated S {}"
  by (simp add: l2_invalidated_def)

text \<open>Position n of a thread's code comes after an increment at the L2 with
  only quiet instructions and no invalidation of the L1 between.\<close>
definition iv_pend :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "iv_pend xs n \<longleftrightarrow> (\<exists>j < n. (\<exists>r x. xs ! j = INCL2 r x)
     \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)))"

lemma iv_pend_Suc: "iv_pend xs (Suc n) \<longleftrightarrow> (\<exists>r x. xs ! n = INCL2 r x)
    \<or> (iv_pend xs n \<and> quiet (xs ! n) \<and> (\<forall>sc. xs ! n \<noteq> INVL1 sc))"
proof
  assume "iv_pend xs (Suc n)"
  then obtain j r x where j: "j < Suc n" "xs ! j = INCL2 r x"
    "\<forall>m. j < m \<and> m < Suc n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)"
    by (auto simp: iv_pend_def)
  show "(\<exists>r x. xs ! n = INCL2 r x) \<or> (iv_pend xs n \<and> quiet (xs ! n) \<and> (\<forall>sc. xs ! n \<noteq> INVL1 sc))"
  proof (cases "j = n")
    case True
    then show ?thesis using j(2) by blast
  next
    case False
    then have "j < n" using j(1) by simp
    then show ?thesis using j unfolding iv_pend_def by auto
  qed
next
  assume a: "(\<exists>r x. xs ! n = INCL2 r x) \<or> (iv_pend xs n \<and> quiet (xs ! n) \<and> (\<forall>sc. xs ! n \<noteq> INVL1 sc))"
  show "iv_pend xs (Suc n)"
  proof (cases "\<exists>r x. xs ! n = INCL2 r x")
    case True
    then show ?thesis unfolding iv_pend_def by (intro exI[of _ n]) auto
  next
    case False
    then obtain j r x where j: "j < n" "xs ! j = INCL2 r x"
      "\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)"
      "quiet (xs ! n)" "\<forall>sc. xs ! n \<noteq> INVL1 sc"
      using a by (auto simp: iv_pend_def)
    have "\<forall>m. j < m \<and> m < Suc n \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)"
    proof (intro allI impI)
      fix m assume "j < m \<and> m < Suc n"
      then show "quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)" using j(3-5) by (cases "m = n") auto
    qed
    then show ?thesis unfolding iv_pend_def using j(1,2) by (intro exI[of _ j]) auto
  qed
qed

lemma iv_seq_append: "iv_seq p xs \<Longrightarrow> iv_seq False ys \<Longrightarrow> iv_seq p (xs @ ys)"
  by (induction xs arbitrary: p) (auto split: instr.splits)

lemma iv_seq_no_incl2: "\<forall>r x. INCL2 r x \<notin> set xs \<Longrightarrow> iv_seq False xs"
  by (induction xs) (auto split: instr.splits)

text \<open>In such code the instruction at a position that waits for its
  invalidation is quiet.\<close>
lemma iv_seq_quiet: "iv_seq p xs \<Longrightarrow> n < length xs
    \<Longrightarrow> iv_pend xs n \<or> (p \<and> (\<forall>m < n. quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc))) \<Longrightarrow> quiet (xs ! n)"
proof (induction xs arbitrary: p n)
  case Nil
  then show ?case by simp
next
  case (Cons i xs)
  show ?case
  proof (cases n)
    case 0
    then have p: p using Cons.prems(3) by (simp add: iv_pend_def)
    then show ?thesis using Cons.prems(1) 0 by (cases i) auto
  next
    case (Suc n')
    have n': "n' < length xs" using Cons.prems(2) Suc by simp
    have pend: "iv_pend xs n' \<or> ((\<exists>r x. i = INCL2 r x) \<and> (\<forall>m < n'. quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)))
        \<or> (iv_pend (i # xs) n' \<and> False) \<or> (p \<and> quiet i \<and> (\<forall>sc. i \<noteq> INVL1 sc) \<and> (\<forall>m < n'. quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)))"
    proof -
      consider "iv_pend (i # xs) (Suc n')" | "p \<and> (\<forall>m < Suc n'. quiet ((i # xs) ! m) \<and> (\<forall>sc. (i # xs) ! m \<noteq> INVL1 sc))"
        using Cons.prems(3) Suc by blast
      then show ?thesis
      proof cases
        case 1
        then obtain j r x where j: "j < Suc n'" "(i # xs) ! j = INCL2 r x"
          "\<forall>m. j < m \<and> m < Suc n' \<longrightarrow> quiet ((i # xs) ! m) \<and> (\<forall>sc. (i # xs) ! m \<noteq> INVL1 sc)"
          by (auto simp: iv_pend_def)
        show ?thesis
        proof (cases j)
          case 0
          have "\<forall>m < n'. quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)"
            using j(3) 0 by (metis Suc_mono nth_Cons_Suc zero_less_Suc)
          then show ?thesis using j(2) 0 by auto
        next
          case (Suc j')
          have q: "\<forall>m. j' < m \<and> m < n' \<longrightarrow> quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)"
          proof (intro allI impI)
            fix m assume "j' < m \<and> m < n'"
            then show "quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)" using j(3) Suc
              by (metis Suc_mono nth_Cons_Suc)
          qed
          have "j' < n'" "\<exists>r x. xs ! j' = INCL2 r x" using j(1,2) Suc by auto
          then have "iv_pend xs n'" unfolding iv_pend_def using q by blast
          then show ?thesis by blast
        qed
      next
        case 2
        have "\<forall>m < n'. quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)"
          using 2 by (metis Suc_mono nth_Cons_Suc)
        moreover have "quiet i" "\<forall>sc. i \<noteq> INVL1 sc" using 2 by (metis nth_Cons_0 zero_less_Suc)+
        ultimately show ?thesis using 2 by blast
      qed
    qed
    have "quiet (xs ! n')"
    proof (cases i)
      case (INCL2 r x)
      then have "iv_seq True xs" using Cons.prems(1) by simp
      moreover have "iv_pend xs n' \<or> (True \<and> (\<forall>m < n'. quiet (xs ! m) \<and> (\<forall>sc. xs ! m \<noteq> INVL1 sc)))"
        using pend INCL2 by auto
      ultimately show ?thesis using Cons.IH n' by blast
    next
      case (INVL1 sc)
      then have "iv_seq False xs" using Cons.prems(1) by simp
      moreover have "iv_pend xs n'" using pend INVL1 by auto
      ultimately show ?thesis using Cons.IH n' by blast
    qed (use Cons.prems(1) Cons.IH n' pend in auto)
    then show ?thesis using Suc by simp
  qed
qed

text \<open>So in code compiled by such rows no visible instruction waits.\<close>
lemma compiled_iv_seq:
  assumes rows: "l1_rows S A" "l2_invalidated S B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
  shows "iv_seq False (concat (map (compile_instr S) c))"
proof -
  have "iv_seq False (compile_instr S i)" if "i \<in> set c" for i
  proof (cases i)
    case (Op a r' x')
    then have a: "a \<in> A \<union> B" using rows(3) that by (auto simp: op_of_def)
    show ?thesis
    proof (cases "a \<in> B")
      case True
      then obtain rw where "S a = Some rw" "\<forall>r x. iv_seq False (rw r x)" using rows(2) by (auto simp: l2_invalidated_def)
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
      then show ?thesis using Op rw(1) iv_seq_no_incl2 by (simp add: compile_instr_def)
    qed
  next
    case (SetReg r' v)
    then show ?thesis by (simp add: compile_instr_def)
  qed
  then show ?thesis by (induction c) (auto intro: iv_seq_append)
qed

text \<open>A write of x that thread t has seen.\<close>
definition seen_wr :: "scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> tid \<Rightarrow> addr \<Rightarrow> sev \<Rightarrow> bool" where
  "seen_wr S P s g t x a \<longleftrightarrow> wx S P s x a \<and> seen S P s g t a"

text \<open>The writes of the readable lines are at home: an L1 line's write that
  has not reached the L2 is of the line's work-group, one that has not
  reached memory of the line's device; an L2 line's write has reached the
  L2, of the line's device unless it has reached memory.\<close>
definition home_ok :: "layout \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "home_ok L s g \<longleftrightarrow>
     (\<forall>w x. readable (l1 s w x) \<longrightarrow> (ga2 g (h1 g w x) = None \<longrightarrow> ewg L (h1 g w x) = Some w)
        \<and> (ga3 g (h1 g w x) = None \<longrightarrow> dv L (h1 g w x) = Some (dev_of L w)))
   \<and> (\<forall>d x. readable (l2 s d x) \<longrightarrow> ga2 g (h2 g d x) \<noteq> None
        \<and> (ga3 g (h2 g d x) = None \<longrightarrow> dv L (h2 g d x) = Some d))"

text \<open>[RSP15] sec. 5: a readable L1 line whose write has reached the L2 is no
  newer than the L2's line.\<close>
definition l12_ok :: "layout \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "l12_ok L s g \<longleftrightarrow> (\<forall>w x. readable (l1 s w x) \<and> ga2 g (h1 g w x) \<noteq> None \<and> readable (l2 s (dev_of L w) x)
     \<longrightarrow> sb L g (h1 g w x) (h2 g (dev_of L w) x))"

text \<open>The writes a thread has seen are settled before what it would read
  next: its L1 line (unless it waits for the invalidation after an
  increment at the L2), its L2 line once they have reached the L2; each is
  at home for the thread (in its work-group's L1 until it reaches the L2,
  in its device's L2 until memory). Every access a thread has performed
  observes a write settled after those its earlier accesses of the
  location observed.\<close>
definition wr_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "wr_ok L S P s g \<longleftrightarrow> 0 < clk g
   \<and> (\<forall>t \<in> src_threads P. \<forall>x a. seen_wr S P s g t x a \<and> readable (l1 s (wg_of L t) x)
        \<and> \<not> iv_pend (instrs (compile S P) t) (pc s t) \<longrightarrow> sb L g a (h1 g (wg_of L t) x))
   \<and> (\<forall>t \<in> src_threads P. \<forall>x a. seen_wr S P s g t x a \<and> readable (l2 s (dev_of L (wg_of L t)) x) \<and> ga2 g a \<noteq> None
        \<longrightarrow> sb L g a (h2 g (dev_of L (wg_of L t)) x))
   \<and> (\<forall>a r. (a, r) \<in> src_po P \<and> (is_wr P a \<or> is_rd P a) \<and> is_rd P r \<and> done_ev S P s r \<and> sloc P a = sloc P r
        \<longrightarrow> sb L g (ob P g a) (grf g r))
   \<and> (\<forall>r e. (r, e) \<in> src_po P \<and> is_rd P r \<and> is_wr P e \<and> done_ev S P s e \<and> sloc P r = sloc P e
        \<longrightarrow> grf g r \<noteq> e \<and> sb L g (grf g r) e)
   \<and> (\<forall>t \<in> src_threads P. \<forall>x a. seen_wr S P s g t x a \<longrightarrow> (ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L t))
        \<and> (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t))))
   \<and> home_ok L s g \<and> l12_ok L s g"

lemma wr_ok_initial: "wr_ok L S P (initial (src_init P)) (ghost0 P)"
proof -
  have nr: "\<not> (is_rd P r \<and> done_ev S P (initial (src_init P)) r)" for r
    by (cases r) auto
  have "\<not> seen_wr S P (initial (src_init P)) (ghost0 P) t x a" for t x a
    using nr by (cases a) (auto simp: seen_wr_def seen_def wx_def)
  moreover have "\<not> done_ev S P (initial (src_init P)) e" if "(r, e) \<in> src_po P" for r e
    using that by (auto simp: src_po_def)
  moreover have "\<not> readable (l1 (initial (src_init P)) w x)" "\<not> readable (l2 (initial (src_init P)) d x)" for w d x
    by (simp_all add: initial_fields readable_def)
  ultimately show ?thesis using nr by (auto simp: wr_ok_def ghost0_def home_ok_def l12_ok_def)
qed

lemma sb_times: "gt g' = gt g \<Longrightarrow> ga2 g' = ga2 g \<Longrightarrow> ga3 g' = ga3 g \<Longrightarrow> sb L g' = sb L g"
  by (simp add: sb_def[abs_def] key_def)

lemma seen_wr_same: "pc s' = pc s \<Longrightarrow> grf g' = grf g \<Longrightarrow> seen_wr S P s' g' = seen_wr S P s g"
proof -
  assume a: "pc s' = pc s" "grf g' = grf g"
  have "wx S P s' = wx S P s" unfolding wx_def[abs_def] done_same[OF a(1)] ..
  then show ?thesis unfolding seen_wr_def[abs_def] seen_same[OF a] by simp
qed

lemma seen_wx: "seen_wr S P s g t x a \<Longrightarrow> wx S P s x a"
  by (simp add: seen_wr_def)

lemma own_seen: "is_wr P a \<Longrightarrow> done_ev S P s a \<Longrightarrow> sthread a = Some t \<Longrightarrow> sloc P a = Some x
    \<Longrightarrow> seen_wr S P s g t x a"
  by (auto simp: seen_wr_def seen_def wx_def)

lemma ob_same: "grf g' = grf g \<Longrightarrow> ob P g' = ob P g"
  by (simp add: ob_def fun_eq_iff)

lemma ob_wr: "is_wr P a \<Longrightarrow> ob P g a = a"
  by (cases a) (auto simp: ob_def dest: rd_wr)

lemma ob_rd: "is_rd P a \<Longrightarrow> ob P g a = grf g a"
  by (simp add: ob_def)

lemma readable_some: "readable e \<Longrightarrow> e \<noteq> None"
  by (cases e) (auto simp: readable_def)

lemma grf_wx: "ev_inv S P s g \<Longrightarrow> is_rd P r \<Longrightarrow> done_ev S P s r \<Longrightarrow> sloc P r = Some y \<Longrightarrow> wx S P s y (grf g r)"
  using ev_parts(2) wr_wx by metis

lemma wr_po_wx: "(a, r) \<in> src_po P \<Longrightarrow> is_wr P a \<Longrightarrow> done_ev S P s r \<Longrightarrow> sloc P a = Some y \<Longrightarrow> wx S P s y a"
  using po_done wr_wx by metis

lemma h1_wx: "lines_inv S P s g \<Longrightarrow> readable (l1 s w y) \<Longrightarrow> wx S P s y (h1 g w y)"
  using readable_some by (auto simp: lines_inv_iff line1_def)

lemma h2_wx: "lines_inv S P s g \<Longrightarrow> readable (l2 s d y) \<Longrightarrow> wx S P s y (h2 g d y)"
  using readable_some by (auto simp: lines_inv_iff line2_def)

text \<open>What a read of a thread has seen, and what an access observes.\<close>
lemma read_seen: "ev_inv S P s g \<Longrightarrow> is_rd P r \<Longrightarrow> done_ev S P s r \<Longrightarrow> sthread r = Some t \<Longrightarrow> sloc P r = Some x
    \<Longrightarrow> seen_wr S P s g t x (grf g r)"
  using grf_wx by (auto simp: seen_wr_def seen_def)

lemma ob_seen:
  assumes "ev_inv S P s g" "is_wr P a \<or> is_rd P a" "done_ev S P s a" "sthread a = Some t" "sloc P a = Some x"
  shows "seen_wr S P s g t x (ob P g a)"
proof (cases "is_rd P a")
  case True
  then show ?thesis using read_seen[OF assms(1) True assms(3-5)] by (simp add: ob_def)
next
  case False
  then show ?thesis using own_seen[of P a S s t x g] assms(2-5) by (simp add: ob_def)
qed

lemma ob_wx: "ev_inv S P s g \<Longrightarrow> (a, r) \<in> src_po P \<Longrightarrow> is_wr P a \<or> is_rd P a \<Longrightarrow> done_ev S P s r \<Longrightarrow> sloc P a = Some y
    \<Longrightarrow> wx S P s y (ob P g a)"
proof -
  assume a: "ev_inv S P s g" "(a, r) \<in> src_po P" "is_wr P a \<or> is_rd P a" "done_ev S P s r" "sloc P a = Some y"
  show ?thesis
  proof (cases "is_rd P a")
    case True
    then show ?thesis using grf_wx[OF a(1) True po_done[OF a(2,4)] a(5)] by (simp add: ob_def)
  next
    case False
    then show ?thesis using wr_po_wx[OF a(2) _ a(4,5)] a(3) by (simp add: ob_def)
  qed
qed

lemma wr_okD:
  assumes "wr_ok L S P s g"
  shows "0 < clk g"
    and "t \<in> src_threads P \<Longrightarrow> seen_wr S P s g t x a \<Longrightarrow> readable (l1 s (wg_of L t) x)
      \<Longrightarrow> \<not> iv_pend (instrs (compile S P) t) (pc s t) \<Longrightarrow> sb L g a (h1 g (wg_of L t) x)"
    and "t \<in> src_threads P \<Longrightarrow> seen_wr S P s g t x a \<Longrightarrow> readable (l2 s (dev_of L (wg_of L t)) x)
      \<Longrightarrow> ga2 g a \<noteq> None \<Longrightarrow> sb L g a (h2 g (dev_of L (wg_of L t)) x)"
    and "(a, r) \<in> src_po P \<Longrightarrow> is_wr P a \<or> is_rd P a \<Longrightarrow> is_rd P r \<Longrightarrow> done_ev S P s r \<Longrightarrow> sloc P a = sloc P r
      \<Longrightarrow> sb L g (ob P g a) (grf g r)"
    and "(r, e) \<in> src_po P \<Longrightarrow> is_rd P r \<Longrightarrow> is_wr P e \<Longrightarrow> done_ev S P s e \<Longrightarrow> sloc P r = sloc P e
      \<Longrightarrow> sb L g (grf g r) e"
    and "t \<in> src_threads P \<Longrightarrow> seen_wr S P s g t x a \<Longrightarrow> ga2 g a = None \<Longrightarrow> ewg L a = Some (wg_of L t)"
    and "t \<in> src_threads P \<Longrightarrow> seen_wr S P s g t x a \<Longrightarrow> ga3 g a = None \<Longrightarrow> dv L a = Some (dev_of L (wg_of L t))"
    and "home_ok L s g" and "l12_ok L s g"
    and "(r, e) \<in> src_po P \<Longrightarrow> is_rd P r \<Longrightarrow> is_wr P e \<Longrightarrow> done_ev S P s e \<Longrightarrow> sloc P r = sloc P e
      \<Longrightarrow> grf g r \<noteq> e"
  using assms unfolding wr_ok_def by blast+

lemma wr_okI:
  assumes "0 < clk g"
    and "\<And>t x a. t \<in> src_threads P \<Longrightarrow> seen_wr S P s g t x a \<Longrightarrow> readable (l1 s (wg_of L t) x)
      \<Longrightarrow> \<not> iv_pend (instrs (compile S P) t) (pc s t) \<Longrightarrow> sb L g a (h1 g (wg_of L t) x)"
    and "\<And>t x a. t \<in> src_threads P \<Longrightarrow> seen_wr S P s g t x a \<Longrightarrow> readable (l2 s (dev_of L (wg_of L t)) x)
      \<Longrightarrow> ga2 g a \<noteq> None \<Longrightarrow> sb L g a (h2 g (dev_of L (wg_of L t)) x)"
    and "\<And>a r. (a, r) \<in> src_po P \<Longrightarrow> is_wr P a \<or> is_rd P a \<Longrightarrow> is_rd P r \<Longrightarrow> done_ev S P s r \<Longrightarrow> sloc P a = sloc P r
      \<Longrightarrow> sb L g (ob P g a) (grf g r)"
    and "\<And>r e. (r, e) \<in> src_po P \<Longrightarrow> is_rd P r \<Longrightarrow> is_wr P e \<Longrightarrow> done_ev S P s e \<Longrightarrow> sloc P r = sloc P e
      \<Longrightarrow> grf g r \<noteq> e \<and> sb L g (grf g r) e"
    and "\<And>t x a. t \<in> src_threads P \<Longrightarrow> seen_wr S P s g t x a \<Longrightarrow> (ga2 g a = None \<longrightarrow> ewg L a = Some (wg_of L t))
      \<and> (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
    and "home_ok L s g" and "l12_ok L s g"
  shows "wr_ok L S P s g"
  using assms unfolding wr_ok_def by blast

lemma home_okD:
  assumes "home_ok L s g"
  shows "readable (l1 s w x) \<Longrightarrow> ga2 g (h1 g w x) = None \<Longrightarrow> ewg L (h1 g w x) = Some w"
    and "readable (l1 s w x) \<Longrightarrow> ga3 g (h1 g w x) = None \<Longrightarrow> dv L (h1 g w x) = Some (dev_of L w)"
    and "readable (l2 s d x) \<Longrightarrow> ga2 g (h2 g d x) \<noteq> None"
    and "readable (l2 s d x) \<Longrightarrow> ga3 g (h2 g d x) = None \<Longrightarrow> dv L (h2 g d x) = Some d"
  using assms unfolding home_ok_def by blast+

lemma l12_okD: "l12_ok L s g \<Longrightarrow> readable (l1 s w x) \<Longrightarrow> ga2 g (h1 g w x) \<noteq> None \<Longrightarrow> readable (l2 s (dev_of L w) x)
    \<Longrightarrow> sb L g (h1 g w x) (h2 g (dev_of L w) x)"
  unfolding l12_ok_def by blast

text \<open>Lines that lose readability, and a ghost whose times, lines and reads stay.\<close>
lemma wr_mono:
  assumes wr: "wr_ok L S P s g" and pc: "pc s' = pc s"
    and r1: "\<forall>w y. readable (l1 s' w y) \<longrightarrow> readable (l1 s w y)" and r2: "\<forall>d y. readable (l2 s' d y) \<longrightarrow> readable (l2 s d y)"
    and gh: "gt g' = gt g" "ga2 g' = ga2 g" "ga3 g' = ga3 g" "h1 g' = h1 g" "h2 g' = h2 g" "grf g' = grf g" "clk g \<le> clk g'"
  shows "wr_ok L S P s' g'"
proof -
  have e: "sb L g' = sb L g" using sb_times[OF gh(1-3)] .
  have sw: "seen_wr S P s' g' = seen_wr S P s g" using seen_wr_same[OF pc gh(6)] .
  have o: "ob P g' = ob P g" using ob_same[OF gh(6)] .
  have ho: "home_ok L s g" and lo: "l12_ok L s g" using wr_okD(8,9)[OF wr] .
  show ?thesis
  proof (rule wr_okI)
    show "0 < clk g'" using wr_okD(1)[OF wr] gh(7) by simp
  next
    fix t x a assume "t \<in> src_threads P" "seen_wr S P s' g' t x a" "readable (l1 s' (wg_of L t) x)"
      "\<not> iv_pend (instrs (compile S P) t) (pc s' t)"
    then show "sb L g' a (h1 g' (wg_of L t) x)" using wr_okD(2)[OF wr] sw r1 pc e gh by simp
  next
    fix t x a assume "t \<in> src_threads P" "seen_wr S P s' g' t x a" "readable (l2 s' (dev_of L (wg_of L t)) x)"
      "ga2 g' a \<noteq> None"
    then show "sb L g' a (h2 g' (dev_of L (wg_of L t)) x)" using wr_okD(3)[OF wr] sw r2 e gh by simp
  next
    fix a r assume "(a, r) \<in> src_po P" "is_wr P a \<or> is_rd P a" "is_rd P r" "done_ev S P s' r" "sloc P a = sloc P r"
    then show "sb L g' (ob P g' a) (grf g' r)" using wr_okD(4)[OF wr] done_same[OF pc] e o gh by simp
  next
    fix r e' assume "(r, e') \<in> src_po P" "is_rd P r" "is_wr P e'" "done_ev S P s' e'" "sloc P r = sloc P e'"
    then show "grf g' r \<noteq> e' \<and> sb L g' (grf g' r) e'" using wr_okD(5,10)[OF wr] done_same[OF pc] e gh by simp
  next
    fix t x a assume "t \<in> src_threads P" "seen_wr S P s' g' t x a"
    then show "(ga2 g' a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
      using wr_okD(6,7)[OF wr] sw gh by simp
  next
    show "home_ok L s' g'" using ho r1 r2 gh unfolding home_ok_def by simp
  next
    show "l12_ok L s' g'" using lo r1 r2 gh e unfolding l12_ok_def by simp
  qed
qed

text \<open>A fetch into an L1 copies the L2's line, which the writes a thread has
  seen that reached the L2 are settled before; none waits in the L1 (a
  fetch needs the line clean).\<close>
lemma wr_fetch1:
  assumes inv: "ginv L S P s g" and wr: "wr_ok L S P s g"
    and s': "s' = set_l1 w x (Some (val_of (l2 s (dev_of L w) x), Clean, Valid)) s"
    and c: "l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid)" "readable (l2 s (dev_of L w) x)"
  shows "wr_ok L S P s' (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
proof -
  define g' where "g' = g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>"
  have pc: "pc s' = pc s" using s' by (simp add: set_l1_def)
  have e: "sb L g' = sb L g" by (rule sb_times) (simp_all add: g'_def)
  have o: "ga2 g' = ga2 g" "ga3 g' = ga3 g" "h2 g' = h2 g" "grf g' = grf g" "clk g' = clk g"
    by (simp_all add: g'_def)
  have sw: "seen_wr S P s' g' = seen_wr S P s g" using seen_wr_same[OF pc o(4)] .
  have ob: "ob P g' = ob P g" using ob_same[OF o(4)] .
  have di: "dirty_inv L S P s g" using inv by (simp add: ginv_def)
  have nd: "\<not> dirty (l1 s w x)" using c(1) by (auto simp: dirty_iff)
  have ho: "home_ok L s g" and lo: "l12_ok L s g" using wr_okD(8,9)[OF wr] .
  have r1: "readable (l1 s' v y) \<longleftrightarrow> (v = w \<and> y = x) \<or> readable (l1 s v y)" for v y
    using s' by (auto simp: set_l1_def readable_def)
  have h1': "h1 g' v y = (if v = w \<and> y = x then h2 g (dev_of L w) x else h1 g v y)" for v y
    by (simp add: g'_def)
  have l2s: "l2 s' = l2 s" using s' by (simp add: set_l1_def)
  show ?thesis unfolding g'_def[symmetric]
  proof (rule wr_okI)
    show "0 < clk g'" using wr_okD(1)[OF wr] o(5) by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a" and rd: "readable (l1 s' (wg_of L t) y)"
      and np': "\<not> iv_pend (instrs (compile S P) t) (pc s' t)"
    have a: "seen_wr S P s g t y a" and np: "\<not> iv_pend (instrs (compile S P) t) (pc s t)"
      using a' np' sw pc by simp_all
    show "sb L g' a (h1 g' (wg_of L t) y)"
    proof (cases "wg_of L t = w \<and> y = x")
      case True
      have "ga2 g a \<noteq> None"
      proof
        assume n: "ga2 g a = None"
        then have "a \<in> pend1 L S P s g w x" using seen_wx[OF a] wr_okD(6)[OF wr t a n] True by (simp add: pend1_def)
        then show False using di nd by (auto simp: dirty_inv_def)
      qed
      then have "sb L g a (h2 g (dev_of L (wg_of L t)) y)" using wr_okD(3)[OF wr t a] c(2) True by simp
      then show ?thesis using True e h1' by simp
    next
      case False
      then have "readable (l1 s (wg_of L t) y)" "h1 g' (wg_of L t) y = h1 g (wg_of L t) y"
        using rd r1 h1' by auto
      then show ?thesis using wr_okD(2)[OF wr t a _ np] e by simp
    qed
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
      and rd: "readable (l2 s' (dev_of L (wg_of L t)) y)" and a2: "ga2 g' a \<noteq> None"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    show "sb L g' a (h2 g' (dev_of L (wg_of L t)) y)" using wr_okD(3)[OF wr t a] rd a2 e o l2s by simp
  next
    fix a r assume "(a, r) \<in> src_po P" "is_wr P a \<or> is_rd P a" "is_rd P r" "done_ev S P s' r" "sloc P a = sloc P r"
    then show "sb L g' (ob P g' a) (grf g' r)" using wr_okD(4)[OF wr] done_same[OF pc] e ob o by simp
  next
    fix r e' assume "(r, e') \<in> src_po P" "is_rd P r" "is_wr P e'" "done_ev S P s' e'" "sloc P r = sloc P e'"
    then show "grf g' r \<noteq> e' \<and> sb L g' (grf g' r) e'" using wr_okD(5,10)[OF wr] done_same[OF pc] e o by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    show "(ga2 g' a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
      using wr_okD(6,7)[OF wr t a] o by simp
  next
    show "home_ok L s' g'" unfolding home_ok_def
    proof (intro conjI allI impI)
      fix v y assume rv: "readable (l1 s' v y)" and n: "ga2 g' (h1 g' v y) = None"
      show "ewg L (h1 g' v y) = Some v"
      proof (cases "v = w \<and> y = x")
        case True
        then show ?thesis using home_okD(3)[OF ho c(2)] n h1' o by simp
      next
        case False
        then have "readable (l1 s v y)" "h1 g' v y = h1 g v y" using rv r1 h1' by auto
        then show ?thesis using home_okD(1)[OF ho] n o by simp
      qed
    next
      fix v y assume rv: "readable (l1 s' v y)" and n: "ga3 g' (h1 g' v y) = None"
      show "dv L (h1 g' v y) = Some (dev_of L v)"
      proof (cases "v = w \<and> y = x")
        case True
        then show ?thesis using home_okD(4)[OF ho c(2)] n h1' o by simp
      next
        case False
        then have "readable (l1 s v y)" "h1 g' v y = h1 g v y" using rv r1 h1' by auto
        then show ?thesis using home_okD(2)[OF ho] n o by simp
      qed
    next
      fix d y assume "readable (l2 s' d y)"
      then show "ga2 g' (h2 g' d y) \<noteq> None" using home_okD(3)[OF ho] l2s o by simp
    next
      fix d y assume "readable (l2 s' d y)" "ga3 g' (h2 g' d y) = None"
      then show "dv L (h2 g' d y) = Some d" using home_okD(4)[OF ho] l2s o by simp
    qed
  next
    show "l12_ok L s' g'" unfolding l12_ok_def
    proof (intro allI impI)
      fix v y assume a: "readable (l1 s' v y) \<and> ga2 g' (h1 g' v y) \<noteq> None \<and> readable (l2 s' (dev_of L v) y)"
      show "sb L g' (h1 g' v y) (h2 g' (dev_of L v) y)"
      proof (cases "v = w \<and> y = x")
        case True
        then show ?thesis using h1' o by simp
      next
        case False
        then have h: "readable (l1 s v y)" "h1 g' v y = h1 g v y" using a r1 h1' by auto
        then have "sb L g (h1 g v y) (h2 g (dev_of L v) y)" using l12_okD[OF lo h(1)] a l2s o by simp
        then show ?thesis using e o h(2) by simp
      qed
    qed
  qed
qed

text \<open>A fetch into an L2 copies memory's cell: a write that has reached the
  L2 but not memory would leave the line dirty, and the fetch needs it
  clean; one that has reached memory is settled before the cell's.\<close>
lemma wr_fetch2:
  assumes inv: "ginv L S P s g" and wr: "wr_ok L S P s g"
    and s': "s' = set_l2 d x (Some (mem s x, Clean, Valid)) s" and nd: "\<not> dirty (l2 s d x)"
  shows "wr_ok L S P s' (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
proof -
  define g' where "g' = g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>"
  have pc: "pc s' = pc s" using s' by (simp add: set_l2_def)
  have e: "sb L g' = sb L g" by (rule sb_times) (simp_all add: g'_def)
  have o: "ga2 g' = ga2 g" "ga3 g' = ga3 g" "h1 g' = h1 g" "grf g' = grf g" "clk g' = clk g"
    by (simp_all add: g'_def)
  have sw: "seen_wr S P s' g' = seen_wr S P s g" using seen_wr_same[OF pc o(4)] .
  have ob: "ob P g' = ob P g" using ob_same[OF o(4)] .
  have di: "dirty_inv L S P s g" and li: "lines_inv S P s g" and ti: "time_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have c: "0 < clk g" using wr_okD(1)[OF wr] .
  have ho: "home_ok L s g" and lo: "l12_ok L s g" using wr_okD(8,9)[OF wr] .
  have cl: "cell S P s g x" using li by (simp add: lines_inv_iff)
  have r2: "readable (l2 s' d' y) \<longleftrightarrow> (d' = d \<and> y = x) \<or> readable (l2 s d' y)" for d' y
    using s' by (auto simp: set_l2_def readable_def)
  have h2': "h2 g' d' y = (if d' = d \<and> y = x then hm g x else h2 g d' y)" for d' y
    by (simp add: g'_def)
  have l1s: "l1 s' = l1 s" using s' by (simp add: set_l2_def)
  \<comment> \<open>a write of x that has reached the L2 of d but not memory makes the line dirty\<close>
  have mem3: "ga3 g a \<noteq> None" if "wx S P s x a" "ga2 g a \<noteq> None" "ga3 g a = None \<longrightarrow> dv L a = Some d" for a
  proof
    assume n: "ga3 g a = None"
    then have "a \<in> pend2 L S P s g d x" using that by (simp add: pend2_def dv_def)
    then show False using di nd by (auto simp: dirty_inv_def)
  qed
  have cm: "sb L g a (hm g x)" if "wx S P s x a" "ga3 g a \<noteq> None" for a
  proof -
    have "a = hm g x \<or> klt (key g a) (key g (hm g x))" using cl that by (simp add: cell_def)
    then show ?thesis using that(2) by (auto simp: sb_def)
  qed
  have hm: "wx S P s x (hm g x)" "ga3 g (hm g x) \<noteq> None" using cl by (simp_all add: cell_def)
  have hm2: "ga2 g (hm g x) \<noteq> None" using hm times_lt[OF ti c hm(1)] by auto
  show ?thesis unfolding g'_def[symmetric]
  proof (rule wr_okI)
    show "0 < clk g'" using c o(5) by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a" and rd: "readable (l1 s' (wg_of L t) y)"
      and np': "\<not> iv_pend (instrs (compile S P) t) (pc s' t)"
    have a: "seen_wr S P s g t y a" and np: "\<not> iv_pend (instrs (compile S P) t) (pc s t)"
      using a' np' sw pc by simp_all
    show "sb L g' a (h1 g' (wg_of L t) y)" using wr_okD(2)[OF wr t a _ np] rd l1s e o by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
      and rd: "readable (l2 s' (dev_of L (wg_of L t)) y)" and a2: "ga2 g' a \<noteq> None"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    show "sb L g' a (h2 g' (dev_of L (wg_of L t)) y)"
    proof (cases "dev_of L (wg_of L t) = d \<and> y = x")
      case True
      have "ga3 g a \<noteq> None" using mem3[of a] seen_wx[OF a] a2 wr_okD(7)[OF wr t a] True o by simp
      then have "sb L g a (hm g x)" using cm seen_wx[OF a] True by simp
      then show ?thesis using True e h2' by simp
    next
      case False
      then have "readable (l2 s (dev_of L (wg_of L t)) y)" "h2 g' (dev_of L (wg_of L t)) y = h2 g (dev_of L (wg_of L t)) y"
        using rd r2 h2' by auto
      then show ?thesis using wr_okD(3)[OF wr t a] a2 e o by simp
    qed
  next
    fix a r assume "(a, r) \<in> src_po P" "is_wr P a \<or> is_rd P a" "is_rd P r" "done_ev S P s' r" "sloc P a = sloc P r"
    then show "sb L g' (ob P g' a) (grf g' r)" using wr_okD(4)[OF wr] done_same[OF pc] e ob o by simp
  next
    fix r e' assume "(r, e') \<in> src_po P" "is_rd P r" "is_wr P e'" "done_ev S P s' e'" "sloc P r = sloc P e'"
    then show "grf g' r \<noteq> e' \<and> sb L g' (grf g' r) e'" using wr_okD(5,10)[OF wr] done_same[OF pc] e o by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    show "(ga2 g' a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
      using wr_okD(6,7)[OF wr t a] o by simp
  next
    show "home_ok L s' g'" unfolding home_ok_def
    proof (intro conjI allI impI)
      fix v y assume "readable (l1 s' v y)" "ga2 g' (h1 g' v y) = None"
      then show "ewg L (h1 g' v y) = Some v" using home_okD(1)[OF ho] l1s o by simp
    next
      fix v y assume "readable (l1 s' v y)" "ga3 g' (h1 g' v y) = None"
      then show "dv L (h1 g' v y) = Some (dev_of L v)" using home_okD(2)[OF ho] l1s o by simp
    next
      fix d' y assume rv: "readable (l2 s' d' y)"
      show "ga2 g' (h2 g' d' y) \<noteq> None"
      proof (cases "d' = d \<and> y = x")
        case True
        then show ?thesis using hm2 h2' o by simp
      next
        case False
        then have "readable (l2 s d' y)" "h2 g' d' y = h2 g d' y" using rv r2 h2' by auto
        then show ?thesis using home_okD(3)[OF ho] o by simp
      qed
    next
      fix d' y assume rv: "readable (l2 s' d' y)" and n: "ga3 g' (h2 g' d' y) = None"
      show "dv L (h2 g' d' y) = Some d'"
      proof (cases "d' = d \<and> y = x")
        case True
        then show ?thesis using hm(2) n h2' o by simp
      next
        case False
        then have "readable (l2 s d' y)" "h2 g' d' y = h2 g d' y" using rv r2 h2' by auto
        then show ?thesis using home_okD(4)[OF ho] n o by simp
      qed
    qed
  next
    show "l12_ok L s' g'" unfolding l12_ok_def
    proof (intro allI impI)
      fix v y assume a: "readable (l1 s' v y) \<and> ga2 g' (h1 g' v y) \<noteq> None \<and> readable (l2 s' (dev_of L v) y)"
      have rv: "readable (l1 s v y)" using a l1s by simp
      show "sb L g' (h1 g' v y) (h2 g' (dev_of L v) y)"
      proof (cases "dev_of L v = d \<and> y = x")
        case True
        have wv: "wx S P s x (h1 g v x)" using h1_wx[OF li rv] True by simp
        have "ga3 g (h1 g v x) \<noteq> None"
          using mem3[OF wv] a home_okD(2)[OF ho rv] True o by simp
        then have "sb L g (h1 g v x) (hm g x)" using cm wv by simp
        then show ?thesis using True e h2' o by simp
      next
        case False
        then have h: "readable (l2 s (dev_of L v) y)" "h2 g' (dev_of L v) y = h2 g (dev_of L v) y"
          using a r2 h2' by auto
        then have "sb L g (h1 g v y) (h2 g (dev_of L v) y)" using l12_okD[OF lo rv] a o by simp
        then show ?thesis using e o h(2) by simp
      qed
    qed
  qed
qed

text \<open>A write-back from an L1 puts the line's write in the L2 after every
  write there: a write that waited with it in the line is settled before
  it, and so is one of the device that reached the L2 before.\<close>
lemma sb_wb1_line:
  assumes inv: "ginv L S P s g" and c: "0 < clk g" and dty: "dirty (l1 s w x)" and we: "wx S P s x e"
    and h: "e \<in> pend1 L S P s g w x \<or> (ga2 g e \<noteq> None \<and> (ga3 g e = None \<longrightarrow> dv L e = Some (dev_of L w)))"
  shows "sb L (wb1g L S P s g w x) e (h1 g w x)"
proof -
  define g' where "g' = wb1g L S P s g w x"
  have ti: "time_inv S P s g" and di: "dirty_inv L S P s g" using inv by (simp_all add: ginv_def)
  have gf: "gt g' = gt g" "ga3 g' = ga3 g"
      "ga2 g' = (\<lambda>e. if e \<in> pend1 L S P s g w x then Some (clk g) else ga2 g e)"
    by (simp_all add: g'_def wb1g_def)
  have hh: "h1 g w x \<in> pend1 L S P s g w x" "\<forall>e \<in> pend1 L S P s g w x. gt g e \<le> gt g (h1 g w x)"
    using di dty unfolding dirty_inv_def by blast+
  define hx where "hx = h1 g w x"
  have hx: "ga2 g' hx = Some (clk g)" "ga3 g hx = None" "wx S P s x hx" "ewg L hx = Some w" "\<forall>z. hx \<noteq> Init z"
    using hh(1) gf(3) times_lt[OF ti c, of x hx] by (auto simp: pend1_def hx_def)
  have "sb L g' e hx"
  proof (cases "e \<in> pend1 L S P s g w x")
    case True
    have aa: "ga2 g' e = Some (clk g)" "ga3 g e = None" "ewg L e = Some w" "\<forall>z. e \<noteq> Init z"
      using True gf(3) times_lt[OF ti c, of x e] by (auto simp: pend1_def)
    show ?thesis
    proof (cases "e = hx")
      case True
      then show ?thesis by simp
    next
      case False
      have "gt g e \<le> gt g hx" using hh(2) \<open>e \<in> pend1 L S P s g w x\<close> by (simp add: hx_def)
      moreover have "gt g e \<noteq> gt g hx" using time_inj[OF ti _ hx(3) aa(4) hx(5)] \<open>e \<in> pend1 L S P s g w x\<close> False
        by (auto simp: pend1_def)
      ultimately have "gt g e < gt g hx" by simp
      then show ?thesis using aa hx gf(1,2) by (simp add: sb_def dv_def)
    qed
  next
    case False
    then have a2: "ga2 g' e = ga2 g e" "ga2 g e \<noteq> None" using h gf(3) by simp_all
    have lt: "the (ga2 g e) < clk g" using a2 times_lt[OF ti c we] by auto
    show ?thesis
    proof (cases "ga3 g e")
      case None
      then have "dv L e = dv L hx" using h False hx(4) by (simp add: dv_def)
      then show ?thesis using lt a2 hx gf(1,2) None by (auto simp: sb_def)
    next
      case (Some n)
      then show ?thesis using hx gf(2) by (simp add: sb_def)
    qed
  qed
  then show ?thesis by (simp add: g'_def hx_def)
qed

text \<open>A write-back from an L1 puts the line's write in the L2: the writes
  that waited with it arrive together, the line's the newest; a write that
  reached the L2 before is settled before it.\<close>
lemma wr_wb1:
  assumes inv: "ginv L S P s g" and wr: "wr_ok L S P s g" and dty: "dirty (l1 s w x)"
    and s': "s' = write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)"
  shows "wr_ok L S P s' (wb1g L S P s g w x)"
proof -
  define g' where "g' = wb1g L S P s g w x"
  obtain v f where l: "l1 s w x = Some (v, Dirty, f)" using dty by (auto simp: dirty_iff)
  have sf: "l1 s' = (l1 s)(w := (l1 s w)(x := Some (v, Clean, f)))"
      "l2 s' = (l2 s)(dev_of L w := (l2 s (dev_of L w))(x := Some (v, Dirty, Valid)))" "pc s' = pc s"
    using s' l by (simp_all add: write_back_l1_def enq_l2_def set_l2_def set_l1_def)
  have pc: "pc s' = pc s" using sf(3) .
  have ti: "time_inv S P s g" and li: "lines_inv S P s g" and di: "dirty_inv L S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have c: "0 < clk g" using wr_okD(1)[OF wr] .
  have gf: "h1 g' = h1 g" "h2 g' = (h2 g)(dev_of L w := (h2 g (dev_of L w))(x := h1 g w x))" "grf g' = grf g"
      "clk g' = Suc (clk g)" "gt g' = gt g" "ga3 g' = ga3 g"
      "ga2 g' = (\<lambda>e. if e \<in> pend1 L S P s g w x then Some (clk g) else ga2 g e)"
    by (simp_all add: g'_def wb1g_def)
  have sw: "seen_wr S P s' g' = seen_wr S P s g" using seen_wr_same[OF pc gf(3)] .
  have ob: "ob P g' = ob P g" using ob_same[OF gf(3)] .
  have ho: "home_ok L s g" and lo: "l12_ok L s g" using wr_okD(8,9)[OF wr] .
  have r1: "readable (l1 s' v' y) \<longleftrightarrow> readable (l1 s v' y)" for v' y
    using sf(1) l by (auto simp: readable_def)
  have r2: "readable (l2 s' d y) \<longleftrightarrow> (d = dev_of L w \<and> y = x) \<or> readable (l2 s d y)" for d y
    using sf(2) by (auto simp: readable_def)
  have hh: "h1 g w x \<in> pend1 L S P s g w x" "\<forall>e \<in> pend1 L S P s g w x. gt g e \<le> gt g (h1 g w x)"
    using di dty unfolding dirty_inv_def by blast+
  define hx where "hx = h1 g w x"
  have hxp: "hx \<in> pend1 L S P s g w x" using hh(1) by (simp add: hx_def)
  have hx: "ga2 g' hx = Some (clk g)" "ga3 g hx = None" "wx S P s x hx" "ewg L hx = Some w" "\<forall>z. hx \<noteq> Init z"
    using hxp gf(7) times_lt[OF ti c, of x hx] by (auto simp: pend1_def)
  have sbk: "sb L g' a h" if "sb L g a h" "wx S P s y a" "wx S P s y h" for a h y
    using sb_wb1[OF ti c that(2,3) that(1)] by (simp add: g'_def)
  have before: "sb L g' a hx" if "wx S P s x a"
    "a \<in> pend1 L S P s g w x \<or> (ga2 g a \<noteq> None \<and> (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L w)))" for a
    using sb_wb1_line[OF inv c dty that] by (simp add: g'_def hx_def)
  show ?thesis unfolding g'_def[symmetric]
  proof (rule wr_okI)
    show "0 < clk g'" using gf(4) by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a" and rd: "readable (l1 s' (wg_of L t) y)"
      and np': "\<not> iv_pend (instrs (compile S P) t) (pc s' t)"
    have a: "seen_wr S P s g t y a" and np: "\<not> iv_pend (instrs (compile S P) t) (pc s t)"
      using a' np' sw pc by simp_all
    have rd0: "readable (l1 s (wg_of L t) y)" using rd r1 by simp
    have "sb L g a (h1 g (wg_of L t) y)" using wr_okD(2)[OF wr t a rd0 np] .
    then have "sb L g' a (h1 g (wg_of L t) y)" using sbk seen_wx[OF a] h1_wx[OF li rd0] by blast
    then show "sb L g' a (h1 g' (wg_of L t) y)" using gf(1) by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
      and rd: "readable (l2 s' (dev_of L (wg_of L t)) y)" and a2: "ga2 g' a \<noteq> None"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    have wa: "wx S P s y a" using seen_wx[OF a] .
    show "sb L g' a (h2 g' (dev_of L (wg_of L t)) y)"
    proof (cases "dev_of L (wg_of L t) = dev_of L w \<and> y = x")
      case True
      have h2': "h2 g' (dev_of L (wg_of L t)) y = hx" using True gf(2) by (simp add: hx_def)
      have "a \<in> pend1 L S P s g w x \<or> (ga2 g a \<noteq> None \<and> (ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L w)))"
        using a2 gf(7) wr_okD(7)[OF wr t a] True by (auto split: if_splits)
      then show ?thesis using before wa True h2' by simp
    next
      case False
      have ne: "a \<notin> pend1 L S P s g w x"
      proof
        assume p: "a \<in> pend1 L S P s g w x"
        then have "ewg L a = Some w" "wx S P s x a" "ga2 g a = None" by (auto simp: pend1_def)
        then have "wg_of L t = w" "y = x" using wr_okD(6)[OF wr t a] wx_loc_eq[OF wa] by auto
        then show False using False by simp
      qed
      have rd0: "readable (l2 s (dev_of L (wg_of L t)) y)" using rd r2 False by auto
      have "ga2 g a \<noteq> None" using a2 ne gf(7) by simp
      then have "sb L g a (h2 g (dev_of L (wg_of L t)) y)" using wr_okD(3)[OF wr t a rd0] by simp
      then have "sb L g' a (h2 g (dev_of L (wg_of L t)) y)" using sbk wa h2_wx[OF li rd0] by blast
      then show ?thesis using gf(2) False by auto
    qed
  next
    fix a r assume ar: "(a, r) \<in> src_po P" "is_wr P a \<or> is_rd P a" "is_rd P r" "done_ev S P s' r" "sloc P a = sloc P r"
    have dr: "done_ev S P s r" using ar(4) done_same[OF pc] by simp
    obtain y where y: "sloc P r = Some y" using ar(3) rd_addr by (cases r) auto
    have "sb L g (ob P g a) (grf g r)" using wr_okD(4)[OF wr ar(1-3) dr ar(5)] .
    then have "sb L g' (ob P g a) (grf g r)"
      using sbk ob_wx[OF ei ar(1,2) dr] grf_wx[OF ei ar(3) dr y] y ar(5) by metis
    then show "sb L g' (ob P g' a) (grf g' r)" using gf(3) ob by simp
  next
    fix r e' assume ar: "(r, e') \<in> src_po P" "is_rd P r" "is_wr P e'" "done_ev S P s' e'" "sloc P r = sloc P e'"
    have de: "done_ev S P s e'" using ar(4) done_same[OF pc] by simp
    obtain y where y: "sloc P e' = Some y" using ar(3) wr_loc by blast
    have ne: "grf g r \<noteq> e'" using wr_okD(10)[OF wr ar(1-3) de ar(5)] .
    have "sb L g (grf g r) e'" using wr_okD(5)[OF wr ar(1-3) de ar(5)] .
    then have "sb L g' (grf g r) e'"
      using sbk grf_wx[OF ei ar(2) po_done[OF ar(1) de]] wr_wx[OF ar(3) de y] y ar(5) by metis
    then show "grf g' r \<noteq> e' \<and> sb L g' (grf g' r) e'" using gf(3) ne by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    have "ga2 g' a = None \<Longrightarrow> ewg L a = Some (wg_of L t)" using wr_okD(6)[OF wr t a] gf(7) by (auto split: if_splits)
    moreover have "dv L a = Some (dev_of L (wg_of L t))" if n3: "ga3 g' a = None"
    proof (cases "ga2 g a")
      case None
      then show ?thesis using wr_okD(6)[OF wr t a] by (simp add: dv_def)
    next
      case (Some n)
      then show ?thesis using wr_okD(7)[OF wr t a] n3 gf(6) by simp
    qed
    ultimately show "(ga2 g' a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
      by blast
  next
    show "home_ok L s' g'" unfolding home_ok_def
    proof (intro conjI allI impI)
      fix v' y assume rv: "readable (l1 s' v' y)" and n: "ga2 g' (h1 g' v' y) = None"
      have "ga2 g (h1 g v' y) = None" using n gf(1,7) by (simp split: if_splits)
      then show "ewg L (h1 g' v' y) = Some v'" using home_okD(1)[OF ho] rv r1 gf(1) by simp
    next
      fix v' y assume rv: "readable (l1 s' v' y)" and n: "ga3 g' (h1 g' v' y) = None"
      then show "dv L (h1 g' v' y) = Some (dev_of L v')" using home_okD(2)[OF ho] r1 gf(1,6) by simp
    next
      fix d y assume rv: "readable (l2 s' d y)"
      show "ga2 g' (h2 g' d y) \<noteq> None"
      proof (cases "d = dev_of L w \<and> y = x")
        case True
        then show ?thesis using hx(1) gf(2) by (simp add: hx_def)
      next
        case False
        then show ?thesis using home_okD(3)[OF ho] rv r2 gf(2,7) by auto
      qed
    next
      fix d y assume rv: "readable (l2 s' d y)" and n: "ga3 g' (h2 g' d y) = None"
      show "dv L (h2 g' d y) = Some d"
      proof (cases "d = dev_of L w \<and> y = x")
        case True
        then show ?thesis using hx(4) gf(2) by (simp add: hx_def dv_def)
      next
        case False
        then show ?thesis using home_okD(4)[OF ho] rv r2 n gf(2,6) by auto
      qed
    qed
  next
    show "l12_ok L s' g'" unfolding l12_ok_def
    proof (intro allI impI)
      fix v' y assume a: "readable (l1 s' v' y) \<and> ga2 g' (h1 g' v' y) \<noteq> None \<and> readable (l2 s' (dev_of L v') y)"
      have rv: "readable (l1 s v' y)" using a r1 by simp
      have wv: "wx S P s y (h1 g v' y)" using h1_wx[OF li rv] .
      show "sb L g' (h1 g' v' y) (h2 g' (dev_of L v') y)"
      proof (cases "dev_of L v' = dev_of L w \<and> y = x")
        case True
        have h2': "h2 g' (dev_of L v') y = hx" using True gf(2) by (simp add: hx_def)
        show ?thesis
        proof (cases "v' = w")
          case True
          then show ?thesis using h2' \<open>dev_of L v' = dev_of L w \<and> y = x\<close> gf(1) by (simp add: hx_def)
        next
          case False
          have "ga2 g (h1 g v' y) \<noteq> None"
          proof
            assume n: "ga2 g (h1 g v' y) = None"
            then have "ewg L (h1 g v' y) = Some v'" using home_okD(1)[OF ho rv] by simp
            then have "h1 g v' y \<notin> pend1 L S P s g w x" using False by (auto simp: pend1_def)
            then show False using a n gf(1,7) by simp
          qed
          moreover have "ga3 g (h1 g v' y) = None \<longrightarrow> dv L (h1 g v' y) = Some (dev_of L w)"
            using home_okD(2)[OF ho rv] True by simp
          ultimately show ?thesis using before[of "h1 g v' y"] wv True h2' gf(1) by auto
        qed
      next
        case False
        have rd2: "readable (l2 s (dev_of L v') y)" using a r2 False by auto
        have "h1 g v' y \<notin> pend1 L S P s g w x"
        proof
          assume p: "h1 g v' y \<in> pend1 L S P s g w x"
          then have "ewg L (h1 g v' y) = Some w" "ga2 g (h1 g v' y) = None" "wx S P s x (h1 g v' y)"
            by (auto simp: pend1_def)
          then have "v' = w" "y = x" using home_okD(1)[OF ho rv] wx_loc_eq[OF wv] by auto
          then show False using False by simp
        qed
        then have "ga2 g (h1 g v' y) \<noteq> None" using a gf(1,7) by simp
        then have "sb L g (h1 g v' y) (h2 g (dev_of L v') y)" using l12_okD[OF lo rv _ rd2] by simp
        then have "sb L g' (h1 g v' y) (h2 g (dev_of L v') y)" using sbk wv h2_wx[OF li rd2] by blast
        then show ?thesis using gf(1,2) False by auto
      qed
    qed
  qed
qed

text \<open>A write-back from an L2 moves no line's write.\<close>
lemma wr_wb2:
  assumes inv: "ginv L S P s g" and wr: "wr_ok L S P s g" and dty: "dirty (l2 s d x)"
    and s': "s' = write_back_l2 d x (s\<lparr>l2_fifo := q\<rparr>)"
  shows "wr_ok L S P s' (wb2g L S P s g d x)"
proof -
  define g' where "g' = wb2g L S P s g d x"
  obtain v f where l: "l2 s d x = Some (v, Dirty, f)" using dty by (auto simp: dirty_iff)
  have sf: "l1 s' = l1 s" "l2 s' = (l2 s)(d := (l2 s d)(x := Some (v, Clean, f)))" "pc s' = pc s"
    using s' l by (simp_all add: write_back_l2_def set_l2_def)
  have pc: "pc s' = pc s" using sf(3) .
  have ti: "time_inv S P s g" and li: "lines_inv S P s g" and ei: "ev_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have c: "0 < clk g" using wr_okD(1)[OF wr] .
  have gf: "h1 g' = h1 g" "h2 g' = h2 g" "grf g' = grf g" "clk g' = Suc (clk g)" "ga2 g' = ga2 g"
      "\<forall>e. ga3 g' e = None \<longrightarrow> ga3 g e = None"
    by (simp_all add: g'_def wb2g_def)
  have sw: "seen_wr S P s' g' = seen_wr S P s g" using seen_wr_same[OF pc gf(3)] .
  have ob: "ob P g' = ob P g" using ob_same[OF gf(3)] .
  have ho: "home_ok L s g" and lo: "l12_ok L s g" using wr_okD(8,9)[OF wr] .
  have r2: "readable (l2 s' d' y) \<longleftrightarrow> readable (l2 s d' y)" for d' y
    using sf(2) l by (auto simp: readable_def)
  have sbk: "sb L g' a h" if "sb L g a h" "wx S P s y a" "wx S P s y h" for a h y
    using sb_wb2[OF ti c that(2,3) that(1)] by (simp add: g'_def)
  show ?thesis unfolding g'_def[symmetric]
  proof (rule wr_okI)
    show "0 < clk g'" using gf(4) by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a" and rd: "readable (l1 s' (wg_of L t) y)"
      and np': "\<not> iv_pend (instrs (compile S P) t) (pc s' t)"
    have a: "seen_wr S P s g t y a" and np: "\<not> iv_pend (instrs (compile S P) t) (pc s t)"
      using a' np' sw pc by simp_all
    have rd0: "readable (l1 s (wg_of L t) y)" using rd sf(1) by simp
    have "sb L g a (h1 g (wg_of L t) y)" using wr_okD(2)[OF wr t a rd0 np] .
    then show "sb L g' a (h1 g' (wg_of L t) y)" using sbk seen_wx[OF a] h1_wx[OF li rd0] gf(1) by metis
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
      and rd: "readable (l2 s' (dev_of L (wg_of L t)) y)" and a2: "ga2 g' a \<noteq> None"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    have rd0: "readable (l2 s (dev_of L (wg_of L t)) y)" using rd r2 by simp
    have "sb L g a (h2 g (dev_of L (wg_of L t)) y)" using wr_okD(3)[OF wr t a rd0] a2 gf(5) by simp
    then show "sb L g' a (h2 g' (dev_of L (wg_of L t)) y)" using sbk seen_wx[OF a] h2_wx[OF li rd0] gf(2) by metis
  next
    fix a r assume ar: "(a, r) \<in> src_po P" "is_wr P a \<or> is_rd P a" "is_rd P r" "done_ev S P s' r" "sloc P a = sloc P r"
    have dr: "done_ev S P s r" using ar(4) done_same[OF pc] by simp
    obtain y where y: "sloc P r = Some y" using ar(3) rd_addr by (cases r) auto
    have "sb L g (ob P g a) (grf g r)" using wr_okD(4)[OF wr ar(1-3) dr ar(5)] .
    then have "sb L g' (ob P g a) (grf g r)"
      using sbk ob_wx[OF ei ar(1,2) dr] grf_wx[OF ei ar(3) dr y] y ar(5) by metis
    then show "sb L g' (ob P g' a) (grf g' r)" using gf(3) ob by simp
  next
    fix r e' assume ar: "(r, e') \<in> src_po P" "is_rd P r" "is_wr P e'" "done_ev S P s' e'" "sloc P r = sloc P e'"
    have de: "done_ev S P s e'" using ar(4) done_same[OF pc] by simp
    obtain y where y: "sloc P e' = Some y" using ar(3) wr_loc by blast
    have ne: "grf g r \<noteq> e'" using wr_okD(10)[OF wr ar(1-3) de ar(5)] .
    have "sb L g (grf g r) e'" using wr_okD(5)[OF wr ar(1-3) de ar(5)] .
    then have "sb L g' (grf g r) e'"
      using sbk grf_wx[OF ei ar(2) po_done[OF ar(1) de]] wr_wx[OF ar(3) de y] y ar(5) by metis
    then show "grf g' r \<noteq> e' \<and> sb L g' (grf g' r) e'" using gf(3) ne by simp
  next
    fix t y a assume t: "t \<in> src_threads P" and a': "seen_wr S P s' g' t y a"
    have a: "seen_wr S P s g t y a" using a' sw by simp
    show "(ga2 g' a = None \<longrightarrow> ewg L a = Some (wg_of L t)) \<and> (ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L t)))"
      using wr_okD(6,7)[OF wr t a] gf(5,6) by simp
  next
    show "home_ok L s' g'" using ho sf(1) r2 gf(1,2,5,6) unfolding home_ok_def by simp
  next
    show "l12_ok L s' g'" unfolding l12_ok_def
    proof (intro allI impI)
      fix v' y assume a: "readable (l1 s' v' y) \<and> ga2 g' (h1 g' v' y) \<noteq> None \<and> readable (l2 s' (dev_of L v') y)"
      have rv: "readable (l1 s v' y)" and rd2: "readable (l2 s (dev_of L v') y)" using a sf(1) r2 by simp_all
      have "sb L g (h1 g v' y) (h2 g (dev_of L v') y)" using l12_okD[OF lo rv _ rd2] a gf(1,5) by simp
      then show "sb L g' (h1 g' v' y) (h2 g' (dev_of L v') y)"
        using sbk h1_wx[OF li rv] h2_wx[OF li rd2] gf(1,2) by metis
    qed
  qed
qed

section \<open>A write that has reached an L2 is settled before its line\<close>

text \<open>[RSP15] sec. 5: the line of a device's L2 is the newest copy on the
  device: a write of the device that has reached its L2 (and perhaps
  memory since) is settled before the line.\<close>
definition l2_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "l2_ok L S P s g \<longleftrightarrow> 0 < clk g \<and> (\<forall>d y e. readable (l2 s d y) \<and> wx S P s y e \<and> ga2 g e \<noteq> None \<and> dv L e = Some d
     \<longrightarrow> sb L g e (h2 g d y))"

lemma l2_ok_initial: "l2_ok L S P (initial (src_init P)) (ghost0 P)"
  by (simp add: l2_ok_def initial_fields readable_def ghost0_def)

lemma l2_okD: "l2_ok L S P s g \<Longrightarrow> readable (l2 s d y) \<Longrightarrow> wx S P s y e \<Longrightarrow> ga2 g e \<noteq> None \<Longrightarrow> dv L e = Some d
    \<Longrightarrow> sb L g e (h2 g d y)"
  unfolding l2_ok_def by blast

text \<open>Steps that keep the times and the L2 lines' writes, and make no L2
  line readable, keep it.\<close>
lemma l2_keep:
  assumes lo: "l2_ok L S P s g" and pc: "pc s' = pc s" and r2: "\<forall>d y. readable (l2 s' d y) \<longrightarrow> readable (l2 s d y)"
    and gh: "gt g' = gt g" "ga2 g' = ga2 g" "ga3 g' = ga3 g" "h2 g' = h2 g" "clk g \<le> clk g'"
  shows "l2_ok L S P s' g'"
proof -
  have "wx S P s' = wx S P s" unfolding wx_def[abs_def] done_same[OF pc] ..
  then show ?thesis using lo r2 sb_times[OF gh(1-3)] gh(2,4,5) unfolding l2_ok_def by auto
qed

text \<open>A fetch into an L2 copies memory's cell: a write of the device that
  has reached the L2 but not memory would leave the line dirty.\<close>
lemma l2_fetch2:
  assumes inv: "ginv L S P s g" and lo: "l2_ok L S P s g"
    and s': "s' = set_l2 d x (Some (mem s x, Clean, Valid)) s" and nd: "\<not> dirty (l2 s d x)"
  shows "l2_ok L S P s' (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
proof -
  define g' where "g' = g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>"
  have pc: "pc s' = pc s" using s' by (simp add: set_l2_def)
  have wq: "wx S P s' = wx S P s" unfolding wx_def[abs_def] done_same[OF pc] ..
  have e: "sb L g' = sb L g" by (rule sb_times) (simp_all add: g'_def)
  have di: "dirty_inv L S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have cl: "cell S P s g x" using li by (simp add: lines_inv_iff)
  show ?thesis unfolding g'_def[symmetric] l2_ok_def
  proof (intro conjI allI impI)
    show "0 < clk g'" using lo by (simp add: l2_ok_def g'_def)
    fix d' y e assume a: "readable (l2 s' d' y) \<and> wx S P s' y e \<and> ga2 g' e \<noteq> None \<and> dv L e = Some d'"
    have we: "wx S P s y e" using a wq by simp
    show "sb L g' e (h2 g' d' y)"
    proof (cases "d' = d \<and> y = x")
      case True
      have "ga3 g e \<noteq> None"
      proof
        assume "ga3 g e = None"
        then have "e \<in> pend2 L S P s g d x" using we a True by (simp add: pend2_def g'_def dv_def)
        then show False using di nd by (auto simp: dirty_inv_def)
      qed
      moreover have "e = hm g x \<or> klt (key g e) (key g (hm g x))" if "ga3 g e \<noteq> None"
        using cl we True that by (simp add: cell_def)
      ultimately have "sb L g e (hm g x)" by (auto simp: sb_def)
      then show ?thesis using True e by (simp add: g'_def)
    next
      case False
      then have "readable (l2 s d' y)" "h2 g' d' y = h2 g d' y" using a s' by (auto simp: set_l2_def g'_def split: if_splits)
      then show ?thesis using l2_okD[OF lo _ we] a e by (simp add: g'_def)
    qed
  qed
qed

text \<open>A write-back from an L1 puts the line's write in the L2, after every
  write there.\<close>
lemma l2_wb1:
  assumes inv: "ginv L S P s g" and lo: "l2_ok L S P s g" and dty: "dirty (l1 s w x)"
    and s': "s' = write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)"
  shows "l2_ok L S P s' (wb1g L S P s g w x)"
proof -
  define g' where "g' = wb1g L S P s g w x"
  obtain v f where l: "l1 s w x = Some (v, Dirty, f)" using dty by (auto simp: dirty_iff)
  have sf: "l2 s' = (l2 s)(dev_of L w := (l2 s (dev_of L w))(x := Some (v, Dirty, Valid)))" "pc s' = pc s"
    using s' l by (simp_all add: write_back_l1_def enq_l2_def set_l2_def set_l1_def)
  have wq: "wx S P s' = wx S P s" unfolding wx_def[abs_def] done_same[OF sf(2)] ..
  have ti: "time_inv S P s g" and li: "lines_inv S P s g"
    using inv by (simp_all add: ginv_def)
  have c: "0 < clk g" using lo by (simp add: l2_ok_def)
  have gf: "h2 g' = (h2 g)(dev_of L w := (h2 g (dev_of L w))(x := h1 g w x))"
      "clk g' = Suc (clk g)" "gt g' = gt g" "ga3 g' = ga3 g"
      "ga2 g' = (\<lambda>e. if e \<in> pend1 L S P s g w x then Some (clk g) else ga2 g e)"
    by (simp_all add: g'_def wb1g_def)
  show ?thesis unfolding g'_def[symmetric] l2_ok_def
  proof (intro conjI allI impI)
    show "0 < clk g'" using gf(2) by simp
    fix d y e assume a: "readable (l2 s' d y) \<and> wx S P s' y e \<and> ga2 g' e \<noteq> None \<and> dv L e = Some d"
    have we: "wx S P s y e" using a wq by simp
    show "sb L g' e (h2 g' d y)"
    proof (cases "d = dev_of L w \<and> y = x")
      case True
      have "e \<in> pend1 L S P s g w x \<or> (ga2 g e \<noteq> None \<and> (ga3 g e = None \<longrightarrow> dv L e = Some (dev_of L w)))"
        using a True gf(5) by (auto split: if_splits)
      then show ?thesis using sb_wb1_line[OF inv c dty, of e] we True gf(1) by (simp add: g'_def)
    next
      case False
      then have r: "readable (l2 s d y)" "h2 g' d y = h2 g d y" using a sf(1) gf(1) by (auto split: if_splits)
      have "e \<notin> pend1 L S P s g w x"
      proof
        assume "e \<in> pend1 L S P s g w x"
        then have "ewg L e = Some w" "wx S P s x e" by (auto simp: pend1_def)
        then have "d = dev_of L w" "y = x" using a wx_loc_eq[OF we] by (auto simp: dv_def)
        then show False using False by simp
      qed
      then have "ga2 g e \<noteq> None" using a gf(5) by simp
      then have "sb L g e (h2 g d y)" using l2_okD[OF lo r(1) we] a by simp
      then show ?thesis using sb_wb1[OF ti c we h2_wx[OF li r(1)]] r(2) by (simp add: g'_def)
    qed
  qed
qed

text \<open>A write-back from an L2 moves no line's write.\<close>
lemma l2_wb2:
  assumes inv: "ginv L S P s g" and lo: "l2_ok L S P s g" and dty: "dirty (l2 s d x)"
    and s': "s' = write_back_l2 d x (s\<lparr>l2_fifo := q\<rparr>)"
  shows "l2_ok L S P s' (wb2g L S P s g d x)"
proof -
  define g' where "g' = wb2g L S P s g d x"
  obtain v f where l: "l2 s d x = Some (v, Dirty, f)" using dty by (auto simp: dirty_iff)
  have sf: "l2 s' = (l2 s)(d := (l2 s d)(x := Some (v, Clean, f)))" "pc s' = pc s"
    using s' l by (simp_all add: write_back_l2_def set_l2_def)
  have wq: "wx S P s' = wx S P s" unfolding wx_def[abs_def] done_same[OF sf(2)] ..
  have ti: "time_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have c: "0 < clk g" using lo by (simp add: l2_ok_def)
  have gf: "h2 g' = h2 g" "clk g' = Suc (clk g)" "ga2 g' = ga2 g" by (simp_all add: g'_def wb2g_def)
  have r2: "readable (l2 s' d' y) \<longleftrightarrow> readable (l2 s d' y)" for d' y
    using sf(1) l by (auto simp: readable_def)
  show ?thesis unfolding g'_def[symmetric] l2_ok_def
  proof (intro conjI allI impI)
    show "0 < clk g'" using gf(2) by simp
    fix d' y e assume a: "readable (l2 s' d' y) \<and> wx S P s' y e \<and> ga2 g' e \<noteq> None \<and> dv L e = Some d'"
    have we: "wx S P s y e" and r: "readable (l2 s d' y)" using a wq r2 by simp_all
    have "sb L g e (h2 g d' y)" using l2_okD[OF lo r we] a gf(3) by simp
    then show "sb L g' e (h2 g' d' y)" using sb_wb2[OF ti c we h2_wx[OF li r]] gf(1) by (simp add: g'_def)
  qed
qed

section \<open>Environment steps keep them\<close>

lemma wr_same: "wr_ok L S P s g \<Longrightarrow> pc s' = pc s \<Longrightarrow> l1 s' = l1 s \<Longrightarrow> l2 s' = l2 s \<Longrightarrow> wr_ok L S P s' g"
  using wr_mono[of L S P s g s' g] by simp

text \<open>Every environment step keeps the invariants, with the ghost updated.\<close>
text \<open>What an environment step does to the ghost's reads and arrival times:
  a read keeps its write, and a write that has reached an L2 or memory stays
  there.\<close>
definition env_mono :: "ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "env_mono g g' \<longleftrightarrow> grf g' = grf g \<and> (\<forall>e. ga2 g e \<noteq> None \<longrightarrow> ga2 g' e \<noteq> None)
     \<and> (\<forall>e. ga3 g e \<noteq> None \<longrightarrow> ga3 g' e \<noteq> None)"

lemma env_mono_refl: "env_mono g g"
  and env_mono_h1: "env_mono g (g\<lparr>h1 := f\<rparr>)"
  and env_mono_h2: "env_mono g (g\<lparr>h2 := f\<rparr>)"
  and env_mono_wb1: "env_mono g (wb1g L S P s g w x)"
  and env_mono_wb2: "env_mono g (wb2g L S P s g d x)"
  by (simp_all add: env_mono_def wb1g_def wb2g_def)

text \<open>Steps that keep sb between the writes of each location.\<close>
definition sb_keep :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "sb_keep L S P s g g' \<longleftrightarrow> (\<forall>y e h. wx S P s y e \<and> wx S P s y h \<and> sb L g e h \<longrightarrow> sb L g' e h)"

lemma sb_keep_refl: "sb_keep L S P s g g"
  and sb_keep_h1: "sb_keep L S P s g (g\<lparr>h1 := f\<rparr>)"
  and sb_keep_h2: "sb_keep L S P s g (g\<lparr>h2 := f\<rparr>)"
  by (simp_all add: sb_keep_def sb_def key_def)

lemma sb_keep_wb1: "time_inv S P s g \<Longrightarrow> 0 < clk g \<Longrightarrow> sb_keep L S P s g (wb1g L S P s g w x)"
  and sb_keep_wb2: "time_inv S P s g \<Longrightarrow> 0 < clk g \<Longrightarrow> sb_keep L S P s g (wb2g L S P s g d x)"
  unfolding sb_keep_def using sb_wb1 sb_wb2 by blast+

text \<open>What an environment step does to the L1 lines: a readable line was
  readable before with its write, or was fetched, clean, from its
  device's readable L2 line.\<close>
definition l1_env :: "layout \<Rightarrow> state \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "l1_env L s s' g g' \<longleftrightarrow> (\<forall>w x. readable (l1 s' w x) \<longrightarrow> (readable (l1 s w x) \<and> h1 g' w x = h1 g w x)
     \<or> (\<not> dirty (l1 s w x) \<and> readable (l2 s (dev_of L w) x) \<and> h1 g' w x = h2 g (dev_of L w) x))"

text \<open>What an environment step does to the L1 fifos and the writes waiting in
  an L1: no write starts waiting, and a fifo is kept or loses its head, the
  address of a line with no write waiting any more.\<close>
definition fifo_env :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "fifo_env L S P s s' g g' \<longleftrightarrow> (\<forall>w y. pend1 L S P s' g' w y \<subseteq> pend1 L S P s g w y)
     \<and> (\<forall>w. l1_fifo s' w = l1_fifo s w \<or> (\<exists>e0. l1_fifo s w = e0 # l1_fifo s' w
          \<and> (\<forall>y. e0 = Addr y \<longrightarrow> pend1 L S P s' g' w y = {})))"

lemma fifo_env_same:
  assumes pc: "pc s' = pc s" and q: "l1_fifo s' = l1_fifo s" and a: "ga2 g' = ga2 g"
  shows "fifo_env L S P s s' g g'"
proof -
  have "pend1 L S P s' g' = pend1 L S P s g" using pend_same[OF pc] a by (simp add: pend1_def[abs_def])
  then show ?thesis using q by (simp add: fifo_env_def)
qed

lemma l1_env_same: "l1 s' = l1 s \<Longrightarrow> h1 g' = h1 g \<Longrightarrow> l1_env L s s' g g'"
  by (simp add: l1_env_def)

lemma l1_env_wb: "h1 g' = h1 g \<Longrightarrow> l1_env L s (write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)) g g'"
  and l1_env_wb2: "h1 g' = h1 g \<Longrightarrow> l1_env L s (write_back_l2 d x (s\<lparr>l2_fifo := q\<rparr>)) g g'"
  and l1_env_evict: "l1_env L s (set_l1 w x None s) g g"
  by (auto simp: l1_env_def write_back_l1_def write_back_l2_def enq_l2_def set_l2_def set_l1_def readable_def
      split: option.splits prod.splits freshness.splits)

lemma l1_env_fetch: "l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid) \<Longrightarrow> readable (l2 s (dev_of L w) x)
    \<Longrightarrow> l1_env L s (set_l1 w x (Some (v, Clean, Valid)) s) g (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
proof -
  assume c: "l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid)" "readable (l2 s (dev_of L w) x)"
  have nd: "\<not> dirty (l1 s w x)"
  proof
    assume "dirty (l1 s w x)"
    moreover have "l1 s w x = None \<or> (\<exists>v. l1 s w x = Some (v, Clean, Invalid))" using c(1) by blast
    ultimately show False by (auto simp: dirty_def)
  qed
  show ?thesis unfolding l1_env_def
  proof (intro allI impI)
    fix v' y assume "readable (l1 (set_l1 w x (Some (v, Clean, Valid)) s) v' y)"
    then show "(readable (l1 s v' y) \<and> h1 (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>) v' y = h1 g v' y)
      \<or> (\<not> dirty (l1 s v' y) \<and> readable (l2 s (dev_of L v') y)
         \<and> h1 (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>) v' y = h2 g (dev_of L v') y)"
      using nd c(2) by (cases "v' = w \<and> y = x") (auto simp: set_l1_def)
  qed
qed

text \<open>What an environment step does to the L2 lines: a readable line was
  readable before with its write, or was fetched from memory, or holds a
  write that has not reached memory (written back from an L1).\<close>
definition l2_env :: "layout \<Rightarrow> state \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "l2_env L s s' g g' \<longleftrightarrow> (\<forall>d x. readable (l2 s' d x) \<longrightarrow> (readable (l2 s d x) \<and> h2 g' d x = h2 g d x)
     \<or> h2 g' d x = hm g x \<or> ga3 g' (h2 g' d x) = None)"

lemma l2_env_same: "l2 s' = l2 s \<Longrightarrow> h2 g' = h2 g \<Longrightarrow> l2_env L s s' g g'"
  by (simp add: l2_env_def)

lemma l2_env_wb2: "h2 g' = h2 g \<Longrightarrow> l2_env L s (write_back_l2 d x (s\<lparr>l2_fifo := q\<rparr>)) g g'"
  and l2_env_evict: "l2_env L s (set_l2 d x None s) g g"
  and l2_env_fetch: "l2_env L s (set_l2 d x (Some (v, Clean, Valid)) s) g (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
  by (auto simp: l2_env_def write_back_l2_def set_l2_def readable_def split: option.splits prod.splits freshness.splits)

lemma l2_env_wb1:
  assumes inv: "ginv L S P s g" and dty: "dirty (l1 s w x)"
  shows "l2_env L s (write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)) g (wb1g L S P s g w x)"
proof -
  have di: "dirty_inv L S P s g" and ti: "time_inv S P s g" using inv by (simp_all add: ginv_def)
  have "h1 g w x \<in> pend1 L S P s g w x" using di dty by (simp add: dirty_inv_def)
  then have a2: "ga2 g (h1 g w x) = None" and wx: "wx S P s x (h1 g w x)" by (simp_all add: pend1_def)
  have a3: "ga3 g (h1 g w x) = None"
  proof (cases "\<exists>z. h1 g w x = Init z")
    case True
    then show ?thesis using ti a2 by (auto simp: time_inv_def)
  next
    case False
    then show ?thesis using time_perf[OF ti wx] a2 by blast
  qed
  obtain v h f where l: "l1 s w x = Some (v, h, f)" using dty by (cases "l1 s w x") (auto simp: dirty_def)
  show ?thesis unfolding l2_env_def
  proof (intro allI impI)
    fix d y assume "readable (l2 (write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)) d y)"
    show "(readable (l2 s d y) \<and> h2 (wb1g L S P s g w x) d y = h2 g d y)
      \<or> h2 (wb1g L S P s g w x) d y = hm g y \<or> ga3 (wb1g L S P s g w x) (h2 (wb1g L S P s g w x) d y) = None"
    proof (cases "d = dev_of L w \<and> y = x")
      case True
      then show ?thesis using a3 by (simp add: wb1g_def)
    next
      case False
      then show ?thesis using \<open>readable (l2 (write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)) d y)\<close> l
        by (auto simp: wb1g_def write_back_l1_def enq_l2_def set_l2_def set_l1_def)
    qed
  qed
qed

text \<open>What an environment step does to the L2 fifos and the writes waiting in
  an L2: a fifo is kept, or loses its head, the address of a line with no
  write waiting any more, or gains at its end the address of a line written
  back from an L1, whose writes are the only ones to start waiting.\<close>
definition fifo2_at :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> did \<Rightarrow> bool" where
  "fifo2_at L S P s s' g g' d \<longleftrightarrow>
       (l2_fifo s' d = l2_fifo s d \<and> (\<forall>y. pend2 L S P s' g' d y \<subseteq> pend2 L S P s g d y))
     \<or> (\<exists>e0. l2_fifo s d = e0 # l2_fifo s' d \<and> (\<forall>y. pend2 L S P s' g' d y \<subseteq> pend2 L S P s g d y)
          \<and> (\<forall>y. e0 = Addr y \<longrightarrow> pend2 L S P s' g' d y = {}))
     \<or> (\<exists>x. l2_fifo s' d = l2_fifo s d @ [Addr x] \<and> (\<forall>y. pend2 L S P s' g' d y
          \<subseteq> pend2 L S P s g d y \<union> {e. y = x \<and> (\<exists>w. dev_of L w = d \<and> e \<in> pend1 L S P s g w y)}))"

definition fifo2_env :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> ghost \<Rightarrow> bool" where
  "fifo2_env L S P s s' g g' \<longleftrightarrow> (\<forall>d. fifo2_at L S P s s' g g' d)"

lemma fifo2_env_same:
  assumes pc: "pc s' = pc s" and q: "l2_fifo s' = l2_fifo s" and a: "ga2 g' = ga2 g" "ga3 g' = ga3 g"
  shows "fifo2_env L S P s s' g g'"
proof -
  have "pend2 L S P s' g' = pend2 L S P s g" using pend_same[OF pc] a by (simp add: pend2_def[abs_def])
  then show ?thesis using q by (simp add: fifo2_env_def fifo2_at_def)
qed

lemma fifo2_env_pop2:
  assumes inv: "ginv L S P s g" and h: "l2_fifo s d = e0 # rest" "\<forall>y. e0 = Addr y \<longrightarrow> \<not> dirty (l2 s d y)"
  shows "fifo2_env L S P s (s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr>) g g"
proof -
  let ?s' = "s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr>"
  have pe: "pend2 L S P ?s' g = pend2 L S P s g" using pend_same[of ?s' s] by simp
  have di: "dirty_inv L S P s g" using inv by (simp add: ginv_def)
  have emp: "pend2 L S P s g d y = {}" if "e0 = Addr y" for y
    using di h(2) that by (simp add: dirty_inv_def)
  show ?thesis unfolding fifo2_env_def
  proof
    fix v
    show "fifo2_at L S P s ?s' g g v"
    proof (cases "v = d")
      case True
      then show ?thesis using h(1) emp pe by (auto simp: fifo2_at_def)
    next
      case False
      then show ?thesis using pe by (simp add: fifo2_at_def)
    qed
  qed
qed

lemma fifo2_env_wb2:
  assumes pc: "pc s' = pc s" and s': "l2_fifo s' = q" and q: "\<forall>v. q v = l2_fifo s v \<or> (v = d \<and> l2_fifo s d = Addr x # q d)"
  shows "fifo2_env L S P s s' g (wb2g L S P s g d x)"
proof -
  let ?g' = "wb2g L S P s g d x"
  have sub: "pend2 L S P s' ?g' v y \<subseteq> pend2 L S P s g v y" for v y
    using pend_same[OF pc] by (auto simp: pend2_def wb2g_def split: if_splits)
  have emp: "pend2 L S P s' ?g' d x = {}"
    using pend_same[OF pc] by (auto simp: pend2_def wb2g_def split: if_splits)
  show ?thesis unfolding fifo2_env_def
  proof
    fix v
    from q consider "q v = l2_fifo s v" | "v = d" "l2_fifo s d = Addr x # q d" by blast
    then show "fifo2_at L S P s s' g ?g' v"
    proof cases
      case 1
      then show ?thesis using s' sub by (simp add: fifo2_at_def)
    next
      case 2
      then show ?thesis using s' sub emp by (auto simp: fifo2_at_def)
    qed
  qed
qed

lemma fifo2_env_wb1:
  assumes pc: "pc s' = pc s" and dty: "dirty (l1 s w x)" and s': "s' = write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)"
  shows "fifo2_env L S P s s' g (wb1g L S P s g w x)"
proof -
  let ?g' = "wb1g L S P s g w x"
  obtain v f where l: "l1 s w x = Some (v, Dirty, f)" using dty by (auto simp: dirty_iff)
  have fq: "l2_fifo s' = (l2_fifo s)(dev_of L w := l2_fifo s (dev_of L w) @ [Addr x])"
    using l s' by (simp add: write_back_l1_def enq_l2_def set_l2_def set_l1_def)
  have sub: "pend2 L S P s' ?g' v y \<subseteq> pend2 L S P s g v y \<union> {e. y = x \<and> (\<exists>w'. dev_of L w' = v \<and> e \<in> pend1 L S P s g w' y)}"
    for v y
  proof
    fix e assume e: "e \<in> pend2 L S P s' ?g' v y"
    show "e \<in> pend2 L S P s g v y \<union> {e. y = x \<and> (\<exists>w'. dev_of L w' = v \<and> e \<in> pend1 L S P s g w' y)}"
    proof (cases "e \<in> pend1 L S P s g w x")
      case True
      then have "ewg L e = Some w" "wx S P s x e" by (simp_all add: pend1_def)
      moreover have "wx S P s y e" "map_option (dev_of L) (ewg L e) = Some v"
        using e pend_same[OF pc] by (simp_all add: pend2_def)
      ultimately have "dev_of L w = v" "e \<in> pend1 L S P s g w y" "y = x"
        using True wx_loc_eq[of S P s x e y] by (auto simp: pend1_def)
      then show ?thesis by blast
    next
      case False
      then show ?thesis using e pend_same[OF pc] by (simp add: pend2_def wb1g_def)
    qed
  qed
  have sub': "pend2 L S P s' ?g' v y \<subseteq> pend2 L S P s g v y" if "v \<noteq> dev_of L w" for v y
  proof
    fix e assume e: "e \<in> pend2 L S P s' ?g' v y"
    have "e \<notin> pend1 L S P s g w x"
    proof
      assume "e \<in> pend1 L S P s g w x"
      then have "ewg L e = Some w" by (simp add: pend1_def)
      moreover have "map_option (dev_of L) (ewg L e) = Some v" using e by (simp add: pend2_def)
      ultimately show False using that by simp
    qed
    then show "e \<in> pend2 L S P s g v y" using e pend_same[OF pc] by (simp add: pend2_def wb1g_def)
  qed
  show ?thesis unfolding fifo2_env_def
  proof
    fix v
    show "fifo2_at L S P s s' g ?g' v"
    proof (cases "v = dev_of L w")
      case True
      then show ?thesis using fq sub by (auto simp: fifo2_at_def)
    next
      case False
      then show ?thesis using fq sub' by (simp add: fifo2_at_def)
    qed
  qed
qed

lemma oinv_env:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and st: "s' \<in> env_step L wb s"
  shows "\<exists>g'. ginv L S P s' g' \<and> oinv L S P s' g' \<and> (wr_ok L S P s g \<longrightarrow> wr_ok L S P s' g')
    \<and> (l2_ok L S P s g \<longrightarrow> l2_ok L S P s' g') \<and> env_mono g g' \<and> (0 < clk g \<longrightarrow> sb_keep L S P s g g')
    \<and> l1_env L s s' g g' \<and> fifo_env L S P s s' g g' \<and> fifo2_env L S P s s' g g' \<and> l2_env L s s' g g'"
proof -
  have pcs: "pc s' = pc s" using env_step_regs_pc_locks[OF st] by simp
  have ti: "time_inv S P s g" using inv by (simp add: ginv_def)
  from inv st show ?thesis
  proof (cases rule: env_ghost_cases)
    case (fetch1 w x)
    then have "oinv L S P s' (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
      using oinv_keep[OF oi pcs] by (simp add: set_l1_def)
    moreover have "l2_ok L S P s g \<longrightarrow> l2_ok L S P s' (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
      using l2_keep[of L S P s g s'] pcs fetch1(2) by (auto simp: set_l1_def)
    moreover have "l1_env L s s' g (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
      using l1_env_fetch[OF fetch1(3,4)] fetch1(2) by simp
    moreover have "fifo_env L S P s s' g (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
      by (rule fifo_env_same[OF pcs]) (simp_all add: fetch1(2) set_l1_def)
    moreover have "fifo2_env L S P s s' g (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
      by (rule fifo2_env_same[OF pcs]) (simp_all add: fetch1(2) set_l1_def)
    moreover have "l2_env L s s' g (g\<lparr>h1 := (h1 g)(w := (h1 g w)(x := h2 g (dev_of L w) x))\<rparr>)"
      by (rule l2_env_same) (simp_all add: fetch1(2) set_l1_def)
    ultimately show ?thesis using fetch1 wr_fetch1[OF inv _ fetch1(2-4)] env_mono_h1 sb_keep_h1 by blast
  next
    case (fetch2 d x)
    then have "oinv L S P s' (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
      using oinv_keep[OF oi pcs] by (simp add: set_l2_def)
    moreover have "l1_env L s s' g (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
      by (rule l1_env_same) (simp_all add: fetch2(2) set_l2_def)
    moreover have "fifo_env L S P s s' g (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
      by (rule fifo_env_same[OF pcs]) (simp_all add: fetch2(2) set_l2_def)
    moreover have "fifo2_env L S P s s' g (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
      by (rule fifo2_env_same[OF pcs]) (simp_all add: fetch2(2) set_l2_def)
    moreover have "l2_env L s s' g (g\<lparr>h2 := (h2 g)(d := (h2 g d)(x := hm g x))\<rparr>)"
      using l2_env_fetch fetch2(2) by simp
    ultimately show ?thesis using fetch2 wr_fetch2[OF inv _ fetch2(2,3)] l2_fetch2[OF inv _ fetch2(2,3)] env_mono_h2 sb_keep_h2 by blast
  next
    case (pop1 w e0 rest)
    have di: "dirty_inv L S P s g" using inv by (simp add: ginv_def)
    have pe: "pend1 L S P s' g = pend1 L S P s g" using pend_same[OF pcs] by simp
    have emp: "pend1 L S P s g w y = {}" if "e0 = Addr y" for y
      using di pop1(4) that by (simp add: dirty_inv_def)
    have fs: "fifo_ok L S P s' g \<and> since_ok L S P s' g"
      by (rule fs_mono[OF _ _ pcs]) (use oi pe emp pop1(2,3) in \<open>auto simp: oinv_def\<close>)
    have "ww_ok S P s' g" using oi unfolding oinv_def ww_ok_def done_same[OF pcs] by blast
    moreover have "wr_ok L S P s g \<longrightarrow> wr_ok L S P s' g" using wr_same pcs pop1(3) by simp
    moreover have "l2_ok L S P s g \<longrightarrow> l2_ok L S P s' g" using l2_keep[of L S P s g s' g] pcs pop1(3) by simp
    moreover have "l1_env L s s' g g" by (rule l1_env_same) (simp_all add: pop1(3))
    moreover have "fifo_env L S P s s' g g"
      unfolding fifo_env_def
    proof (intro conjI allI)
      fix v y show "pend1 L S P s' g v y \<subseteq> pend1 L S P s g v y" using pe by simp
    next
      fix v
      show "l1_fifo s' v = l1_fifo s v \<or> (\<exists>e1. l1_fifo s v = e1 # l1_fifo s' v
          \<and> (\<forall>y. e1 = Addr y \<longrightarrow> pend1 L S P s' g v y = {}))"
      proof (cases "v = w")
        case True
        have "l1_fifo s w = e0 # l1_fifo s' w" using pop1(2,3) by simp
        moreover have "\<forall>y. e0 = Addr y \<longrightarrow> pend1 L S P s' g w y = {}" using emp pe by simp
        ultimately show ?thesis using True by blast
      next
        case False
        then show ?thesis using pop1(3) by simp
      qed
    qed
    moreover have "fifo2_env L S P s s' g g" by (rule fifo2_env_same[OF pcs]) (simp_all add: pop1(3))
    moreover have "l2_env L s s' g g" by (rule l2_env_same) (simp_all add: pop1(3))
    ultimately show ?thesis using pop1(1) fs env_mono_refl sb_keep_refl by (auto simp: oinv_def)
  next
    case (wb1 w x q)
    have q: "\<forall>v. l1_fifo s' v = l1_fifo s v \<or> (v = w \<and> l1_fifo s w = Addr x # l1_fifo s' w)"
      using wb1(3,4) wb_fields(1) by auto
    then have "oinv L S P s' (wb1g L S P s g w x)" using oinv_wb1[OF inv oi pcs] by blast
    moreover have "l1_env L s s' g (wb1g L S P s g w x)" using l1_env_wb wb1(3) by (simp add: wb1g_def)
    moreover have "fifo_env L S P s s' g (wb1g L S P s g w x)"
    proof -
      have pe: "pend1 L S P s' (wb1g L S P s g w x) v y = (if v = w \<and> y = x then {} else pend1 L S P s g v y)" for v y
        using pend1_wb1[of L S P s g w x v y] pend_same[OF pcs] by simp
      show ?thesis
        unfolding fifo_env_def
      proof (intro conjI allI)
        fix v y show "pend1 L S P s' (wb1g L S P s g w x) v y \<subseteq> pend1 L S P s g v y" using pe by simp
      next
        fix v
        from q consider "l1_fifo s' v = l1_fifo s v" | "v = w" "l1_fifo s w = Addr x # l1_fifo s' w" by blast
        then show "l1_fifo s' v = l1_fifo s v \<or> (\<exists>e1. l1_fifo s v = e1 # l1_fifo s' v
            \<and> (\<forall>y. e1 = Addr y \<longrightarrow> pend1 L S P s' (wb1g L S P s g w x) v y = {}))"
        proof cases
          case 1
          then show ?thesis by blast
        next
          case 2
          have "\<forall>y. Addr x = Addr y \<longrightarrow> pend1 L S P s' (wb1g L S P s g w x) w y = {}" using pe by simp
          then show ?thesis using 2 by blast
        qed
      qed
    qed
    moreover have "fifo2_env L S P s s' g (wb1g L S P s g w x)"
      by (rule fifo2_env_wb1[OF pcs wb1(2,3)])
    moreover have "l2_env L s s' g (wb1g L S P s g w x)" using l2_env_wb1[OF inv wb1(2)] wb1(3) by simp
    ultimately show ?thesis using wb1(1) wr_wb1[OF inv _ wb1(2,3)] l2_wb1[OF inv _ wb1(2,3)] env_mono_wb1 sb_keep_wb1[OF ti] by blast
  next
    case (pop2 q)
    have "oinv L S P s' g" using oinv_keep[OF oi pcs] pop2(2) by simp
    moreover have "wr_ok L S P s g \<longrightarrow> wr_ok L S P s' g" using wr_same pcs pop2(2) by simp
    moreover have "l2_ok L S P s g \<longrightarrow> l2_ok L S P s' g" using l2_keep[of L S P s g s' g] pcs pop2(2) by simp
    moreover have "l1_env L s s' g g" by (rule l1_env_same) (simp_all add: pop2(2))
    moreover have "fifo_env L S P s s' g g" by (rule fifo_env_same[OF pcs]) (simp_all add: pop2(2))
    moreover have "fifo2_env L S P s s' g g" using fifo2_env_pop2[OF inv pop2(3,5)] pop2(2,4) by simp
    moreover have "l2_env L s s' g g" by (rule l2_env_same) (simp_all add: pop2(2))
    ultimately show ?thesis using pop2(1) env_mono_refl sb_keep_refl by blast
  next
    case (wb2 d x q)
    have "l1_fifo s' = l1_fifo s" using wb2(3) wb_fields(3) by simp
    then have "oinv L S P s' (wb2g L S P s g d x)" using oinv_wb2[OF inv oi pcs] by blast
    moreover have "l1_env L s s' g (wb2g L S P s g d x)" using l1_env_wb2 wb2(3) by (simp add: wb2g_def)
    moreover have "fifo_env L S P s s' g (wb2g L S P s g d x)"
      by (rule fifo_env_same[OF pcs]) (simp_all add: \<open>l1_fifo s' = l1_fifo s\<close> wb2g_def)
    moreover have "fifo2_env L S P s s' g (wb2g L S P s g d x)"
      by (rule fifo2_env_wb2[OF pcs _ wb2(4)]) (simp add: wb2(3) write_back_l2_def set_l2_def split: option.splits prod.splits)
    moreover have "l2_env L s s' g (wb2g L S P s g d x)" using l2_env_wb2 wb2(3) by (simp add: wb2g_def)
    ultimately show ?thesis using wb2(1) wr_wb2[OF inv _ wb2(2,3)] l2_wb2[OF inv _ wb2(2,3)] env_mono_wb2 sb_keep_wb2[OF ti] by blast
  next
    case (evict1 w x)
    have "oinv L S P s' g" using oinv_keep[OF oi pcs] evict1(3) by (simp add: set_l1_def)
    moreover have "wr_ok L S P s g \<longrightarrow> wr_ok L S P s' g"
      using wr_mono[of L S P s g s' g] pcs evict1(3) by (auto simp: set_l1_def readable_def)
    moreover have "l2_ok L S P s g \<longrightarrow> l2_ok L S P s' g" using l2_keep[of L S P s g s' g] pcs evict1(3)
      by (simp add: set_l1_def)
    moreover have "l1_env L s s' g g" using l1_env_evict evict1(3) by simp
    moreover have "fifo_env L S P s s' g g" by (rule fifo_env_same[OF pcs]) (simp_all add: evict1(3) set_l1_def)
    moreover have "fifo2_env L S P s s' g g" by (rule fifo2_env_same[OF pcs]) (simp_all add: evict1(3) set_l1_def)
    moreover have "l2_env L s s' g g" by (rule l2_env_same) (simp_all add: evict1(3) set_l1_def)
    ultimately show ?thesis using evict1(1) env_mono_refl sb_keep_refl by blast
  next
    case (evict2 d x)
    have "oinv L S P s' g" using oinv_keep[OF oi pcs] evict2(3) by (simp add: set_l2_def)
    moreover have "wr_ok L S P s g \<longrightarrow> wr_ok L S P s' g"
      using wr_mono[of L S P s g s' g] pcs evict2(3) by (auto simp: set_l2_def readable_def)
    moreover have "l2_ok L S P s g \<longrightarrow> l2_ok L S P s' g" using l2_keep[of L S P s g s' g] pcs evict2(3)
      by (auto simp: set_l2_def readable_def)
    moreover have "l1_env L s s' g g" by (rule l1_env_same) (simp_all add: evict2(3) set_l2_def)
    moreover have "fifo_env L S P s s' g g" by (rule fifo_env_same[OF pcs]) (simp_all add: evict2(3) set_l2_def)
    moreover have "fifo2_env L S P s s' g g" by (rule fifo2_env_same[OF pcs]) (simp_all add: evict2(3) set_l2_def)
    moreover have "l2_env L s s' g g" using l2_env_evict evict2(3) by simp
    ultimately show ?thesis using evict2(1) env_mono_refl sb_keep_refl by blast
  qed
qed


section \<open>Thread steps keep them\<close>

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

text \<open>What a thread's instruction does to the lines' readability: a store or
  an increment in the L1 makes its work-group's line readable, an increment
  at the L2 its device's; an invalidation of the L1 makes the lines in its
  scope unreadable; nothing else makes a line readable.\<close>
lemma exec_readable:
  assumes "exec L t i s = Some z"
  shows "readable (l1 z w y) \<Longrightarrow> readable (l1 s w y) \<or> (w = wg_of L t \<and> ((\<exists>v. i = ST v y) \<or> (\<exists>r. i = INCL1 r y)))"
    and "readable (l2 z d y) \<Longrightarrow> readable (l2 s d y) \<or> (d = dev_of L (wg_of L t) \<and> (\<exists>r. i = INCL2 r y))"
    and "i = INVL1 sc \<Longrightarrow> w \<in> wgs_in L sc (wg_of L t) \<Longrightarrow> \<not> readable (l1 z w y)"
  using assms by (cases i; auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def readable_def
      invalidate_def split: if_splits option.splits freshness.splits)+

lemma l2_rows_fetchinc: "l2_rows S B \<Longrightarrow> a \<in> B \<Longrightarrow> \<exists>sc rm. a = FetchInc sc rm"
  by (cases a) (auto simp: l2_rows_def l2_row_def)

lemma visible_quiet: "visible i \<Longrightarrow> \<not> quiet i"
  by (cases i) auto

lemma wx_done: "wx S P s y h \<Longrightarrow> done_ev S P s h"
  by (cases h) (auto simp: wx_def)

text \<open>A thread has seen its own writes, and writes performed before.\<close>
lemma seen_old: "ev_inv S P s g \<Longrightarrow> seen S P s g u e \<Longrightarrow> sthread e = Some u \<or> done_ev S P s e"
  using ev_parts(2) unfolding seen_def by blast

lemma done_thread: "ev_inv S P s g \<Longrightarrow> done_ev S P s (Acc u k p) \<Longrightarrow> u \<in> src_threads P"
  using ev_parts(6) by (fastforce simp: kd_def)

text \<open>A write waits in the L1 of a work-group of the layout.\<close>
lemma pend_wgs: "ev_inv S P s g \<Longrightarrow> well_placed L P \<Longrightarrow> e \<in> pend1 L S P s g w y \<Longrightarrow> w \<in> wgs L"
proof -
  assume a: "ev_inv S P s g" "well_placed L P" "e \<in> pend1 L S P s g w y"
  then have p: "wx S P s y e" "ewg L e = Some w" by (auto simp: pend1_def)
  then obtain u k q where e: "e = Acc u k q" by (cases e) auto
  then have "done_ev S P s e" using p(1) by (simp add: wx_def)
  then have "u \<in> src_threads P" using done_thread[OF a(1)] e by simp
  then show ?thesis using a(2) p(2) e by (auto simp: well_placed_def)
qed

text \<open>A write performed before a fresh write of the L1 of work-group w, and at
  home there, is settled before it; so is one that has reached the L2 before
  a fresh increment at the L2 of device d, at home there.\<close>
lemma sb_fresh1:
  assumes "ga2 g a = None \<longrightarrow> ewg L a = Some w" "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L w)"
    "ga2 g a = None \<longrightarrow> ga3 g a = None" "ga2 g b = None" "ga3 g b = None" "ewg L b = Some w" "gt g a < gt g b"
  shows "sb L g a b"
  using assms by (cases "ga2 g a"; cases "ga3 g a") (auto simp: sb_def dv_def)

lemma sb_fresh2:
  assumes "ga2 g a \<noteq> None" "ga3 g a = None \<longrightarrow> dv L a = Some d" "the (ga2 g a) < n"
    "ga2 g b = Some n" "ga3 g b = None" "dv L b = Some d"
  shows "sb L g a b"
  using assms by (cases "ga3 g a") (auto simp: sb_def)

text \<open>Every step of a thread keeps the invariants, with the ghost updated, for
  a scheme whose increments at the L2 are flushed (wr_ok where they are
  invalidated after, too).\<close>
text \<open>What a thread step of t does, event by event: the step performs the
  events of t's next source instruction k (when its instruction i is
  visible), the one Hrf_Simulation's src_access names; the performed
  events keep their reads and times; its read reads its work-group's L1
  line or its device's L2 line, readable before the step; its write is
  the newest of its L1 line (not yet in the L2) or of its L2 line.\<close>
lemma step_events:
  assumes inv: "ginv L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
  defines "i \<equiv> instrs (compile S P) t ! pc s t" and "k \<equiv> kd S P s t" and "w0 \<equiv> wg_of L t"
  shows step_new: "done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e \<Longrightarrow> (\<exists>p. e = Acc t k p) \<and> visible i"
    and step_ik: "visible i \<Longrightarrow> i = src_access B (src_code P t ! k) \<and> k < length (src_code P t)"
    and step_grf_old: "done_ev S P s r \<Longrightarrow> grf g' r = grf g r"
    and step_old: "done_ev S P s e \<Longrightarrow> gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e"
    and step_others: "u \<noteq> t \<Longrightarrow> kd S P s' u = kd S P s u"
    and step_rd: "is_rd P (Acc t k False) \<Longrightarrow> done_ev S P s' (Acc t k False) \<Longrightarrow> \<exists>y0 r0. sloc P (Acc t k False) = Some y0
      \<and> (((i = LD r0 y0 \<or> i = INCL1 r0 y0) \<and> grf g' (Acc t k False) = h1 g w0 y0 \<and> readable (l1 s w0 y0))
        \<or> (i = INCL2 r0 y0 \<and> grf g' (Acc t k False) = h2 g (dev_of L w0) y0 \<and> readable (l2 s (dev_of L w0) y0)))"
    and step_wr: "is_wr P e \<Longrightarrow> done_ev S P s' e \<Longrightarrow> \<not> done_ev S P s e \<Longrightarrow> \<exists>y0. sloc P e = Some y0 \<and> (\<exists>p. e = Acc t k p)
      \<and> ((((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' e = None \<and> h1 g' w0 y0 = e)
        \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' e = Some (gt g' e) \<and> h2 g' (dev_of L w0) y0 = e))"
proof -
  define xs where "xs = instrs (compile S P) t"
  define n where "n = pc s t"
  have i_def': "i = xs ! n" by (simp add: i_def xs_def n_def)
  have xs: "xs = concat (map (compile_instr S) (src_code P t))"
    by (simp add: xs_def compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
    using rows(3) t by (auto simp: ops_of_def)
  obtain z where nl: "n < length xs" and z: "exec L t i s = Some z" "s' = set_pc t (Suc n) z"
    and kt: "kd S P s' t = (if visible i then Suc k else k)" and kdo0: "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) (simp_all add: xs_def n_def i_def k_def)
  show kdo: "kd S P s' u = kd S P s u" if "u \<noteq> t" for u using kdo0 that by blast
  have gs1: "\<forall>e. done_ev S P s e \<longrightarrow> gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e"
    and gs2: "\<forall>e. is_wr P e \<and> done_ev S P s' e \<and> \<not> done_ev S P s e \<longrightarrow> clk g < gt g' e \<and> gt g' e < clk g' \<and> ga3 g' e = None
          \<and> ((ga2 g' e = None \<and> (\<exists>y v r. sloc P e = Some y \<and> (i = ST v y \<or> i = INCL1 r y)))
             \<or> (ga2 g' e = Some (gt g' e) \<and> (\<exists>r x. i = INCL2 r x)))"
    using gs by (simp_all add: gstep_def i_def)
  show "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using gs1 that by blast
  have gv': "h1 g' = (case i of ST v x \<Rightarrow> (h1 g)(w0 := (h1 g w0)(x := Acc t k False))
     | INCL1 r x \<Rightarrow> (h1 g)(w0 := (h1 g w0)(x := Acc t k True)) | _ \<Rightarrow> h1 g)"
    "h2 g' = (case i of INCL2 r x \<Rightarrow> (h2 g)(dev_of L w0 := (h2 g (dev_of L w0))(x := Acc t k True))
     | _ \<Rightarrow> h2 g)"
    "grf g' = (case i of LD r x \<Rightarrow> (grf g)(Acc t k False := h1 g w0 x)
     | INCL1 r x \<Rightarrow> (grf g)(Acc t k False := h1 g w0 x)
     | INCL2 r x \<Rightarrow> (grf g)(Acc t k False := h2 g (dev_of L w0) x) | _ \<Rightarrow> grf g)"
    using gv unfolding gview_def w0_def i_def k_def by blast+
  show "grf g' r = grf g r" if "done_ev S P s r" for r
  proof -
    have "r \<noteq> Acc t k False" using that by (auto simp: k_def)
    then show ?thesis using gv'(3) by (cases i) auto
  qed
  have vis_new: "visible i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
  proof (rule ccontr)
    assume "\<not> visible i"
    then have "kd S P s' u = kd S P s u" for u using kt kdo by (cases "u = t") (auto simp: k_def)
    then have "kd S P s' = kd S P s" by blast
    then show False using that done_kd by metis
  qed
  have newk: "\<exists>p. e = Acc t k p" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
  proof -
    have "visible i" using vis_new[OF that] .
    then have "kd S P s' u = ((kd S P s)(t := Suc k)) u" for u using kt kdo by (cases "u = t") auto
    then have kq: "kd S P s' = (kd S P s)(t := Suc k)" by blast
    have "k = kd S P s t" by (simp add: k_def)
    then show ?thesis using new_ev[OF kq _ that] by blast
  qed
  show "(\<exists>p. e = Acc t k p) \<and> visible i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using newk[OF that] vis_new[OF that] by blast
  have ik: "i = src_access B (src_code P t ! k) \<and> k < length (src_code P t)" if "visible i"
    using filter_take_nth[OF nl, of visible] that compiled_code(1)[OF rows(1,2) ops]
    by (simp add: k_def kd_def i_def' xs[symmetric] n_def xs_def)
  show "i = src_access B (src_code P t ! k) \<and> k < length (src_code P t)" if "visible i" using ik[OF that] .
  have ins: "ins P t k = src_code P t ! k" by (simp add: ins_def)
  have nd_k: "\<not> done_ev S P s (Acc t k p)" for p by (simp add: k_def)
  show "\<exists>y0 r0. sloc P (Acc t k False) = Some y0
      \<and> (((i = LD r0 y0 \<or> i = INCL1 r0 y0) \<and> grf g' (Acc t k False) = h1 g w0 y0 \<and> readable (l1 s w0 y0))
        \<or> (i = INCL2 r0 y0 \<and> grf g' (Acc t k False) = h2 g (dev_of L w0) y0 \<and> readable (l2 s (dev_of L w0) y0)))"
    if r: "is_rd P (Acc t k False)" "done_ev S P s' (Acc t k False)"
  proof -
    have vis: "visible i" using vis_new[OF r(2) nd_k] .
    obtain a0 r0 y0 where op: "src_code P t ! k = Op a0 r0 y0" and rd0: "rd (Op a0 r0 y0) False"
    proof (cases "src_code P t ! k")
      case (Op a1 r1 y1)
      then show ?thesis using that r(1) by (simp add: ins)
    next
      case (SetReg r1 v1)
      then show ?thesis using r(1) by (simp add: ins)
    qed
    have y0: "sloc P (Acc t k False) = Some y0" using op by (simp add: ins_def)
    show ?thesis
    proof (cases "a0 \<in> B")
      case True
      then have i2: "i = INCL2 r0 y0" using ik[OF vis] op by simp
      have "grf g' (Acc t k False) = h2 g (dev_of L w0) y0" using gv'(3) i2 by simp
      moreover have "readable (l2 s (dev_of L w0) y0)" using z(1) i2 by (auto simp: Let_def w0_def split: if_splits)
      ultimately show ?thesis using y0 i2 by blast
    next
      case False
      then have ia: "i = access a0 r0 y0" using ik[OF vis] op by simp
      then have i1: "i = LD r0 y0 \<or> i = INCL1 r0 y0" using rd0 by (cases a0) (auto simp: access_def)
      have "grf g' (Acc t k False) = h1 g w0 y0" using gv'(3) i1 by auto
      moreover have "readable (l1 s w0 y0)" using z(1) i1 by (auto simp: Let_def w0_def split: if_splits)
      ultimately show ?thesis using y0 i1 by blast
    qed
  qed
  show "\<exists>y0. sloc P e = Some y0 \<and> (\<exists>p. e = Acc t k p)
      \<and> ((((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' e = None \<and> h1 g' w0 y0 = e)
        \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' e = Some (gt g' e) \<and> h2 g' (dev_of L w0) y0 = e))"
    if e: "is_wr P e" "done_ev S P s' e" "\<not> done_ev S P s e" for e
  proof -
    obtain p where ek: "e = Acc t k p" using newk e(2,3) by blast
    have vis: "visible i" using vis_new[OF e(2,3)] .
    obtain a0 r0 y0 where op: "src_code P t ! k = Op a0 r0 y0" and wr0: "wr (Op a0 r0 y0) p"
    proof (cases "src_code P t ! k")
      case (Op a1 r1 y1)
      then show ?thesis using that e(1) ek by (simp add: ins)
    next
      case (SetReg r1 v1)
      then show ?thesis using e(1) ek by (simp add: ins)
    qed
    have y0: "sloc P e = Some y0" using op ek by (simp add: ins_def)
    have g2: "(ga2 g' e = None \<and> (\<exists>y v r. sloc P e = Some y \<and> (i = ST v y \<or> i = INCL1 r y)))
        \<or> (ga2 g' e = Some (gt g' e) \<and> (\<exists>r x. i = INCL2 r x))"
      using gs2 e by blast
    show ?thesis
    proof (cases "a0 \<in> B")
      case True
      then obtain sc rm where "a0 = FetchInc sc rm" using l2_rows_fetchinc[OF rows(2)] by blast
      then have p: "p" using wr0 by simp
      have i2: "i = INCL2 r0 y0" using ik[OF vis] op True by simp
      have "ga2 g' e = Some (gt g' e)" using g2 i2 by auto
      moreover have "h2 g' (dev_of L w0) y0 = e" using gv'(2) i2 ek p by simp
      ultimately show ?thesis using y0 i2 ek by blast
    next
      case False
      then have ia: "i = access a0 r0 y0" using ik[OF vis] op by simp
      then have i1: "(\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)" using wr0 by (cases a0) (auto simp: access_def)
      have "ga2 g' e = None" using g2 i1 by auto
      moreover have "h1 g' w0 y0 = e" using gv'(1) ia ek wr0 by (cases a0) (auto simp: access_def)
      ultimately show ?thesis using y0 i1 ek by blast
    qed
  qed
qed

lemma oinv_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
  shows "\<exists>g'. ginv L S P s' g' \<and> oinv L S P s' g' \<and> (wr_ok L S P s g \<and> l2_invalidated S B \<longrightarrow> wr_ok L S P s' g')
    \<and> (l2_ok L S P s g \<longrightarrow> l2_ok L S P s' g')
    \<and> gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'
    \<and> gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
proof -
  define xs where "xs = instrs (compile S P) t"
  define n where "n = pc s t"
  define i where "i = xs ! n"
  obtain g' where gi: "ginv L S P s' g'" and gs: "gstep P (done_ev S P s) (done_ev S P s') i g g'"
    and gv: "gview L t (kd S P s t) i g g'"
    using ginv_thread_ghost[OF inv t st rows(1-3)] by (auto simp: i_def xs_def n_def)
  have xs: "xs = concat (map (compile_instr S) (src_code P t))"
    by (simp add: xs_def compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
    using rows(3) t by (auto simp: ops_of_def)
  define k where "k = kd S P s t"
  obtain z where nl: "n < length xs" and z: "exec L t i s = Some z" "s' = set_pc t (Suc n) z"
    and nu: "\<not> unflushed L s t" and vq: "visible i \<or> quiet i" and pcz: "pc z = pc s"
    and kt: "kd S P s' t = (if visible i then Suc k else k)" and kdo0: "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) (simp_all add: xs_def n_def i_def k_def)
  have pc': "pc s' = (pc s)(t := Suc n)" "l1_fifo s' = l1_fifo z"
    using z(2) pcz by (simp_all add: set_pc_def n_def)
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
  have gs2r: "clk g < gt g' e \<and> gt g' e < clk g' \<and> ga3 g' e = None
          \<and> ((ga2 g' e = None \<and> (\<exists>y v r. sloc P e = Some y \<and> (i = ST v y \<or> i = INCL1 r y)))
             \<or> (ga2 g' e = Some (gt g' e) \<and> (\<exists>r x. i = INCL2 r x)))"
    if "is_wr P e" "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using gs2 that by blast
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
  have ei0: "ev_inv S P s g" and li0: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have nfa: "Flush t \<notin> set (l1_fifo s w)" if "w \<in> wgs L" for w using nu that by (auto simp: unflushed_def)
  have grf_old: "grf g' r = grf g r" if "done_ev S P s r" for r
  proof -
    have "r \<noteq> Acc t (kd S P s t) False" using that by auto
    then show ?thesis using gv by (cases i) (auto simp: gview_def)
  qed
  \<comment> \<open>only the stepping thread sees more\<close>
  have seen_new: "seen S P s g u e \<or> u = t" if se: "seen S P s' g' u e" for u e
  proof (cases "sthread e = Some u")
    case True
    then show ?thesis by (simp add: seen_def)
  next
    case False
    then obtain r where r: "is_rd P r" "done_ev S P s' r" "sthread r = Some u" "grf g' r = e"
      using se by (auto simp: seen_def)
    show ?thesis
    proof (cases "done_ev S P s r")
      case True
      then show ?thesis using r grf_old[OF True] by (auto simp: seen_def)
    next
      case False
      then show ?thesis using new_thread[OF pco r(2) False] r(3) by simp
    qed
  qed
  have kn_new: "knows L S P s g u e \<or> u = t" if se: "knows L S P s' g' u e" for u e
  proof (cases "u = t")
    case False
    have "\<forall>e. sthread e \<noteq> Some t \<longrightarrow> done_ev S P s' e \<longrightarrow> done_ev S P s e"
    proof (intro allI impI)
      fix e assume "sthread e \<noteq> Some t" "done_ev S P s' e"
      then show "done_ev S P s e" using new_thread[OF pco] by blast
    qed
    then show ?thesis using knows_new[OF ei0 _ _ se False] grf_old by blast
  qed simp
  have fo': "fifo_ok L S P s' g'"
    unfolding fifo_ok_def
  proof (intro allI impI)
    fix w y e assume e: "e \<in> pend1 L S P s' g' w y"
    show "\<exists>k < length (l1_fifo s' w). l1_fifo s' w ! k = Addr y
        \<and> (\<forall>j < k. \<forall>u. knows L S P s' g' u e \<longrightarrow> l1_fifo s' w ! j \<noteq> Flush u)"
    proof (cases "done_ev S P s e")
      case True
      then have ep: "e \<in> pend1 L S P s g w y" using old e by blast
      then obtain k where k: "k < length (l1_fifo s w)" "l1_fifo s w ! k = Addr y"
        "\<forall>j < k. \<forall>u. knows L S P s g u e \<longrightarrow> l1_fifo s w ! j \<noteq> Flush u"
        using fo unfolding fifo_ok_def by blast
      obtain ys where ys: "l1_fifo s' w = l1_fifo s w @ ys" using grow by blast
      have ww: "w \<in> wgs L" using pend_wgs[OF ei0 wp ep] .
      show ?thesis
      proof (intro exI[of _ k] conjI allI impI)
        show "k < length (l1_fifo s' w)" "l1_fifo s' w ! k = Addr y" using k ys by (auto simp: nth_append)
        fix j u assume j: "j < k" and su: "knows L S P s' g' u e"
        have "l1_fifo s' w ! j = l1_fifo s w ! j" using j k(1) ys by (simp add: nth_append)
        moreover have "l1_fifo s w ! j \<noteq> Flush u"
        proof (cases "knows L S P s g u e")
          case True
          then show ?thesis using k(3) j by blast
        next
          case False
          then have "u = t" using kn_new[OF su] by blast
          moreover have "l1_fifo s w ! j \<in> set (l1_fifo s w)" using j k(1) by simp
          ultimately show ?thesis using nfa[OF ww] by auto
        qed
        ultimately show "l1_fifo s' w ! j \<noteq> Flush u" by simp
      qed
    next
      case False
      then have n: "sthread e = Some t" "w = w0" "\<exists>v r. i = ST v y \<or> i = INCL1 r y" using new e by blast+
      then have q: "l1_fifo s' w = l1_fifo s w0 @ [Addr y]" using fq by auto
      show ?thesis
      proof (intro exI[of _ "length (l1_fifo s w0)"] conjI allI impI)
        show "length (l1_fifo s w0) < length (l1_fifo s' w)" "l1_fifo s' w ! length (l1_fifo s w0) = Addr y"
          using q by simp_all
        fix j u assume j: "j < length (l1_fifo s w0)" and su: "knows L S P s' g' u e"
        have "u = t"
        proof (rule ccontr)
          assume ut: "u \<noteq> t"
          then have "knows L S P s g u e" using kn_new[OF su] by blast
          then show False using knows_old[OF ei0] n(1) False ut by fastforce
        qed
        then show "l1_fifo s' w ! j \<noteq> Flush u" using q j nf by (auto simp: nth_append) (metis nth_mem)
      qed
    qed
  qed
  have so': "since_ok L S P s' g'"
    unfolding since_ok_def
  proof (intro ballI impI allI)
    fix u y e assume u: "u \<in> src_threads P" and fl: "flushed (instrs (compile S P) u) (pc s' u)"
      and e: "e \<in> pend1 L S P s' g' (wg_of L u) y \<and> knows L S P s' g' u e"
    show "Flush u \<in> set (l1_fifo s' (wg_of L u))"
    proof (cases "u = t")
      case False
      have su: "knows L S P s g u e" using kn_new e False by blast
      have "done_ev S P s e"
      proof (rule ccontr)
        assume nd: "\<not> done_ev S P s e"
        then have "sthread e = Some t" using new e by blast
        then show False using knows_old[OF ei0 su] nd False by auto
      qed
      then have "e \<in> pend1 L S P s g (wg_of L u) y" using old e by blast
      then have "Flush u \<in> set (l1_fifo s (wg_of L u))" using so u fl pco False su unfolding since_ok_def by metis
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
        have nv: "\<not> visible i" using fn(2) visible_quiet by blast
        have ks: "kd S P s' = kd S P s"
        proof
          fix u' show "kd S P s' u' = kd S P s u'"
            using kt kdo0 nv by (cases "u' = t") (auto simp: k_def)
        qed
        have gq: "grf g' = grf g" using gv gview_quiet[OF fn(2)] by blast
        have sq: "knows L S P s' g' = knows L S P s g" using knows_kd[OF done_kd[OF ks] gq] .
        have "wx S P s' y e" using e by (simp add: pend1_def)
        then have "done_ev S P s e" using wx_done[of S P s' y e] done_kd[OF ks] by simp
        then have "e \<in> pend1 L S P s g w0 y" using old e True by (simp add: w0_def)
        then have "Flush t \<in> set (l1_fifo s w0)" using so t fn(1) e True sq unfolding since_ok_def xs_def n_def w0_def by metis
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
        using kt by (simp add: k_def)
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
            using so t \<open>flushed xs n\<close> e unfolding since_ok_def knows_def xs_def n_def w0_def by fastforce
          then show False using nf by simp
        qed
        then show "ga2 g' e \<noteq> None \<and> the (ga2 g' e) \<le> the (ga2 g' e')"
          using gs1 de tp(2) i2(1) n2(1) by fastforce
      qed
      then show ?thesis using gs1 de tp(1) n2 by simp
    qed
  qed
  \<comment> \<open>a thread's own writes reached its L2 before its increment there\<close>
  have flushed_wr: "ga2 g a \<noteq> None"
    if e2: "\<exists>r x. i = INCL2 r x" and aw: "wx S P s y a" and sa: "seen S P s g t a"
      and ew: "ga2 g a = None \<longrightarrow> ewg L a = Some w0" for a y
  proof
    assume a2: "ga2 g a = None"
    obtain r x where i2: "i = INCL2 r x" using e2 by blast
    have "flushed xs n" using compiled_flushed[OF rows(1,2,4) ops] nl i2 by (simp add: xs i_def)
    have "a \<in> pend1 L S P s g w0 y" using a2 aw ew by (simp add: pend1_def)
    then have "Flush t \<in> set (l1_fifo s w0)"
      using so t \<open>flushed xs n\<close> seen_knows[OF sa] unfolding since_ok_def xs_def n_def w0_def by blast
    then show False using nf by simp
  qed
  have gv': "h1 g' = (case i of ST v x \<Rightarrow> (h1 g)(w0 := (h1 g w0)(x := Acc t (kd S P s t) False))
     | INCL1 r x \<Rightarrow> (h1 g)(w0 := (h1 g w0)(x := Acc t (kd S P s t) True)) | _ \<Rightarrow> h1 g)"
    "h2 g' = (case i of INCL2 r x \<Rightarrow> (h2 g)(dev_of L w0 := (h2 g (dev_of L w0))(x := Acc t (kd S P s t) True))
     | _ \<Rightarrow> h2 g)"
    "grf g' = (case i of LD r x \<Rightarrow> (grf g)(Acc t (kd S P s t) False := h1 g w0 x)
     | INCL1 r x \<Rightarrow> (grf g)(Acc t (kd S P s t) False := h1 g w0 x)
     | INCL2 r x \<Rightarrow> (grf g)(Acc t (kd S P s t) False := h2 g (dev_of L w0) x) | _ \<Rightarrow> grf g)"
    using gv unfolding gview_def w0_def by blast+
  have kdo: "kd S P s' u = kd S P s u" if "u \<noteq> t" for u using kdo0 that by blast
  have nd_k: "\<not> done_ev S P s (Acc t k p)" for p by (simp add: k_def)
  \<comment> \<open>the times of what was performed before the step stay, so does sb between them\<close>
  have sbo: "sb L g' a h = sb L g a h" if "done_ev S P s a" "done_ev S P s h" for a h
    using gs1 that by (intro sb_cong) auto
  \<comment> \<open>the step's own events: of thread t, at instruction k, of the source instruction i performs\<close>
  note se = step_events[OF inv t st rows(1-3) gs[unfolded i_def xs_def n_def] gv[unfolded i_def xs_def n_def]]
  have newk: "\<exists>p. e = Acc t k p" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] by (simp add: k_def)
  have ik: "i = src_access B (src_code P t ! k) \<and> k < length (src_code P t)" if "visible i"
    using se(2) that unfolding i_def xs_def n_def k_def by blast
  have sl: "sloc P (Acc t k p) = addr_of (src_code P t ! k)" for p by (simp add: ins_def)
  have ins: "ins P t k = src_code P t ! k" by (simp add: ins_def)
  have ewk: "ewg L (Acc t k p) = Some w0" "dv L (Acc t k p) = Some (dev_of L w0)" for p
    by (simp_all add: w0_def dv_def)
  have vis_new: "visible i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] by (simp add: i_def xs_def n_def)
  \<comment> \<open>the step's read: of its work-group's L1 line, or of its device's L2 line\<close>
  have rd_step: "\<exists>y0 r0. sloc P (Acc t k False) = Some y0
      \<and> (((i = LD r0 y0 \<or> i = INCL1 r0 y0) \<and> grf g' (Acc t k False) = h1 g w0 y0 \<and> readable (l1 s w0 y0))
        \<or> (i = INCL2 r0 y0 \<and> grf g' (Acc t k False) = h2 g (dev_of L w0) y0 \<and> readable (l2 s (dev_of L w0) y0)))"
    if r: "is_rd P (Acc t k False)" "done_ev S P s' (Acc t k False)"
    using se(6) that unfolding i_def xs_def n_def k_def w0_def by blast
  \<comment> \<open>the step's write: in its work-group's L1 line, or at its device's L2 line\<close>
  have wr_step: "\<exists>y0. sloc P e = Some y0 \<and> (\<exists>p. e = Acc t k p)
      \<and> ((((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' e = None \<and> h1 g' w0 y0 = e)
        \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' e = Some (gt g' e) \<and> h2 g' (dev_of L w0) y0 = e))"
    if e: "is_wr P e" "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(7) that unfolding i_def xs_def n_def k_def w0_def by blast
  \<comment> \<open>a store or an increment performs a write\<close>
  have step_wr: "\<exists>b. is_wr P b \<and> done_ev S P s' b \<and> \<not> done_ev S P s b \<and> sloc P b = Some y"
    if iy: "(\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y) \<or> (\<exists>r. i = INCL2 r y)" for y
  proof -
    have vis: "visible i" using iy by auto
    have kl: "k < length (src_code P t)" using ik[OF vis] by simp
    have dk: "done_ev S P s' (Acc t k p)" for p using kt vis by simp
    obtain a0 r0 y0 where op: "src_code P t ! k = Op a0 r0 y0"
    proof (cases "src_code P t ! k")
      case (Op a1 r1 y1)
      then show ?thesis using that by simp
    next
      case (SetReg r1 v1)
      then show ?thesis using ik[OF vis] iy by auto
    qed
    have y0: "y0 = y" "sloc P (Acc t k p) = Some y0" for p
      using ik[OF vis] op iy by (auto simp: access_def ins_def split: if_splits src_op.splits)
    have "\<exists>p. wr (Op a0 r0 y0) p"
    proof (cases a0)
      case (Load sc rm)
      have "i = LD r0 y0" using ik[OF vis] op Load l2_rows_fetchinc[OF rows(2)] by (auto simp: access_def)
      then show ?thesis using iy by auto
    qed auto
    then obtain p where "wr (Op a0 r0 y0) p" by blast
    then show ?thesis using dk[of p] nd_k[of p] y0 t kl op
      by (intro exI[of _ "Acc t k p"]) (auto simp: acc_def ins)
  qed
  have wr': "wr_ok L S P s' g'" if wr: "wr_ok L S P s g" and iv: "l2_invalidated S B"
  proof -
    have ivs: "iv_seq False xs" using compiled_iv_seq[OF rows(1) iv ops] xs by simp
    have vnp: "\<not> iv_pend xs n" if "visible i"
      using iv_seq_quiet[OF ivs nl] visible_quiet[OF that] by (auto simp: i_def)
    have l': "l1 s' = l1 z" "l2 s' = l2 z" using z(2) by (simp_all add: set_pc_def)
    have c: "0 < clk g" using wr_okD(1)[OF wr] .
    have li: "lines_inv S P s g" and ei: "ev_inv S P s g" using inv by (simp_all add: ginv_def)
    have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
    have ho: "home_ok L s g" and lo: "l12_ok L s g" using wr_okD(8,9)[OF wr] .
    have gs0: "clk g \<le> clk g'" using gs by (simp add: gstep_def)
    \<comment> \<open>a write performed before the step, at home for work-group w\<close>
    define ath where "ath w a \<longleftrightarrow> (ga2 g' a = None \<longrightarrow> ewg L a = Some w) \<and> (ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L w))
        \<and> (ga2 g' a = None \<longrightarrow> ga3 g' a = None) \<and> gt g' a < clk g \<and> (\<forall>m. ga2 g' a = Some m \<longrightarrow> m < clk g)
        \<and> done_ev S P s a" for w a
    have ath_old: "ath w a" if "wx S P s y a" "ga2 g a = None \<longrightarrow> ewg L a = Some w"
      "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L w)" for w a y
    proof -
      have d: "done_ev S P s a" using wx_done[OF that(1)] .
      have "gt g a < clk g" using gt_lt[OF ti c that(1)] .
      then show ?thesis using gs1 d that(2,3) times_lt[OF ti c that(1)] unfolding ath_def by auto
    qed
    have ath_seen: "ath (wg_of L v) a" if "v \<in> src_threads P" "seen_wr S P s g v y a" for v y a
      by (rule ath_old[OF seen_wx[OF that(2)]]) (use wr_okD(6,7)[OF wr that] in auto)
    have ath_h1: "ath w0 (h1 g w0 y)" if "readable (l1 s w0 y)" for y
      by (rule ath_old[OF h1_wx[OF li that]]) (use home_okD(1,2)[OF ho that] in auto)
    have ath_h2: "ath w0 (h2 g (dev_of L w0) y) \<and> ga2 g' (h2 g (dev_of L w0) y) \<noteq> None"
      if "readable (l2 s (dev_of L w0) y)" for y
    proof -
      have d: "done_ev S P s (h2 g (dev_of L w0) y)" using wx_done[OF h2_wx[OF li that]] .
      have "ga2 g (h2 g (dev_of L w0) y) \<noteq> None" using home_okD(3)[OF ho that] .
      then show ?thesis using ath_old[OF h2_wx[OF li that]] home_okD(4)[OF ho that] gs1 d by auto
    qed
    have fresh1: "sb L g' a b" if h: "ath w0 a" "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "ga2 g' b = None" for a b
    proof -
      obtain p where "b = Acc t k p" using newk h(3,4) by blast
      moreover have "clk g < gt g' b" "ga3 g' b = None" using gs2r[OF h(2-4)] by blast+
      ultimately show ?thesis using sb_fresh1[of g' a L w0 b] h(1,5) ewk unfolding ath_def by auto
    qed
    have fresh2: "sb L g' a b" if h: "ga2 g' a \<noteq> None" "ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L w0)"
      "\<forall>m. ga2 g' a = Some m \<longrightarrow> m < clk g" "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "ga2 g' b \<noteq> None" for a b
    proof -
      obtain p where bk: "b = Acc t k p" using newk h(5,6) by blast
      have "ga2 g' b = Some (gt g' b)" "clk g < gt g' b" "ga3 g' b = None" using gs2r[OF h(4-6)] h(7) by auto
      moreover have "the (ga2 g' a) < clk g" using h(1,3) by auto
      ultimately show ?thesis using sb_fresh2[of g' a L "dev_of L w0" "gt g' b" b] h(1,2) ewk bk by auto
    qed
    \<comment> \<open>before an increment at the L2 the writes t has seen have reached the L2\<close>
    have fl2: "ga2 g a \<noteq> None" if "\<exists>r x. i = INCL2 r x" "seen_wr S P s g t y a" for a y
    proof (rule flushed_wr[OF that(1) seen_wx[OF that(2)]])
      show "seen S P s g t a" using that(2) by (simp add: seen_wr_def)
      show "ga2 g a = None \<longrightarrow> ewg L a = Some w0" using wr_okD(6)[OF wr t that(2)] by (simp add: w0_def)
    qed
    \<comment> \<open>what t sees after the step: what it saw, its new write, or what its read read\<close>
    have seen_cases: "seen_wr S P s g v y a
        \<or> (v = t \<and> is_wr P a \<and> done_ev S P s' a \<and> \<not> done_ev S P s a)
        \<or> (v = t \<and> is_rd P (Acc t k False) \<and> done_ev S P s' (Acc t k False) \<and> grf g' (Acc t k False) = a
           \<and> sloc P (Acc t k False) = Some y)"
      if a': "seen_wr S P s' g' v y a" for v y a
    proof -
      have sa': "seen S P s' g' v a" using a' by (simp add: seen_wr_def)
      show ?thesis
      proof (cases "done_ev S P s a")
        case da: True
        have wa: "wx S P s y a" using seen_wx[OF a'] da by (auto simp: wx_def)
        show ?thesis
        proof (cases "seen S P s g v a")
          case True
          then show ?thesis using wa by (simp add: seen_wr_def)
        next
          case False
          then have vt: "v = t" using seen_new[OF sa'] by blast
          have "sthread a \<noteq> Some v" using False by (auto simp: seen_def)
          then obtain r where r: "is_rd P r" "done_ev S P s' r" "sthread r = Some v" "grf g' r = a"
            using sa' by (auto simp: seen_def)
          have nr: "\<not> done_ev S P s r"
          proof
            assume "done_ev S P s r"
            then have "seen S P s g v a" using r grf_old by (auto simp: seen_def)
            then show False using False by simp
          qed
          obtain p where rk: "r = Acc t k p" using newk r(2) nr by blast
          then have "\<not> p" using r(1) rd_part by (auto simp: acc_def)
          then have rk': "r = Acc t k False" using rk by simp
          have "sloc P r = sloc P (grf g' r)" using ev_parts(2)[OF ei'] r(1,2) by metis
          then have "sloc P r = Some y" using r(4) wx_loc[OF seen_wx[OF a']] by simp
          then show ?thesis using vt rk' r by blast
        qed
      next
        case False
        have "\<forall>z. a \<noteq> Init z" using False by auto
        then have aw: "is_wr P a" "done_ev S P s' a" using wx_perf[OF seen_wx[OF a']] by blast+
        have "v = t"
        proof (cases "sthread a = Some v")
          case True
          then show ?thesis using new_thread[OF pco aw(2) False] by simp
        next
          case nv: False
          then obtain r where r: "is_rd P r" "done_ev S P s' r" "sthread r = Some v" "grf g' r = a"
            using sa' by (auto simp: seen_def)
          have "\<not> done_ev S P s r"
          proof
            assume dr: "done_ev S P s r"
            then have "done_ev S P s (grf g r)" using ev_parts(2)[OF ei] r(1) by blast
            then show False using r(4) grf_old[OF dr] False by simp
          qed
          then show ?thesis using new_thread[OF pco r(2)] r(3) by simp
        qed
        then show ?thesis using aw False by blast
      qed
    qed
    \<comment> \<open>so a write t sees after the step: one it saw, its new write, or its read's line\<close>
    have seen_step: "seen_wr S P s g v y a
        \<or> (v = t \<and> \<not> done_ev S P s a \<and> (\<exists>p. a = Acc t k p)
           \<and> ((((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y)) \<and> ga2 g' a = None \<and> h1 g' w0 y = a)
             \<or> ((\<exists>r. i = INCL2 r y) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L w0) y = a)))
        \<or> (v = t \<and> (\<exists>r1. i = LD r1 y \<or> i = INCL1 r1 y) \<and> a = h1 g w0 y \<and> readable (l1 s w0 y))
        \<or> (v = t \<and> (\<exists>r1. i = INCL2 r1 y) \<and> a = h2 g (dev_of L w0) y \<and> readable (l2 s (dev_of L w0) y))"
      if a': "seen_wr S P s' g' v y a" for v y a
    proof -
      consider (o) "seen_wr S P s g v y a" | (n) "v = t" "is_wr P a" "done_ev S P s' a" "\<not> done_ev S P s a"
        | (r) "v = t" "is_rd P (Acc t k False)" "done_ev S P s' (Acc t k False)" "grf g' (Acc t k False) = a"
          "sloc P (Acc t k False) = Some y"
        using seen_cases[OF a'] by blast
      then show ?thesis
      proof cases
        case o
        then show ?thesis by blast
      next
        case n
        obtain y0 where y0: "sloc P a = Some y0" "\<exists>p. a = Acc t k p"
          "(((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' a = None \<and> h1 g' w0 y0 = a)
            \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L w0) y0 = a)"
          using wr_step[OF n(2-4)] by blast
        have "y0 = y" using y0(1) wx_loc[OF seen_wx[OF a']] by simp
        then show ?thesis using n(1,4) y0(2,3) by blast
      next
        case r
        obtain y1 r1 where y1: "sloc P (Acc t k False) = Some y1"
          "((i = LD r1 y1 \<or> i = INCL1 r1 y1) \<and> grf g' (Acc t k False) = h1 g w0 y1 \<and> readable (l1 s w0 y1))
            \<or> (i = INCL2 r1 y1 \<and> grf g' (Acc t k False) = h2 g (dev_of L w0) y1 \<and> readable (l2 s (dev_of L w0) y1))"
          using rd_step[OF r(2,3)] by blast
        have "y1 = y" using y1(1) r(5) by simp
        then show ?thesis using y1(2) r(1,4) by blast
      qed
    qed
    show ?thesis
    proof (rule wr_okI)
      show "0 < clk g'" using c gs0 by simp
    next
      fix v y a assume v: "v \<in> src_threads P" and a': "seen_wr S P s' g' v y a" and rd: "readable (l1 s' (wg_of L v) y)"
        and np': "\<not> iv_pend (instrs (compile S P) v) (pc s' v)"
      show "sb L g' a (h1 g' (wg_of L v) y)"
      proof (cases "wg_of L v = w0 \<and> ((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y))")
        case True
        obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
          using step_wr[of y] True by blast
        obtain y0 where y0: "sloc P b = Some y0" "(((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' b = None \<and> h1 g' w0 y0 = b)
          \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' b = Some (gt g' b) \<and> h2 g' (dev_of L w0) y0 = b)"
          using wr_step[OF bw(1-3)] by blast
        have yy: "y0 = y" using y0(1) bw(4) by simp
        have hb: "h1 g' (wg_of L v) y = b" "ga2 g' b = None" using y0(2) True yy by auto
        show ?thesis
        proof (cases "a = b")
          case True
          then show ?thesis using hb by simp
        next
          case False
          have "ath w0 a"
          proof -
            consider (o) "seen_wr S P s g v y a"
              | (n) "v = t" "\<not> done_ev S P s a" "\<exists>p. a = Acc t k p"
                "(((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y)) \<and> ga2 g' a = None \<and> h1 g' w0 y = a)
                 \<or> ((\<exists>r. i = INCL2 r y) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L w0) y = a)"
              | (l1) "v = t" "\<exists>r1. i = LD r1 y \<or> i = INCL1 r1 y" "a = h1 g w0 y" "readable (l1 s w0 y)"
              | (l2) "v = t" "\<exists>r1. i = INCL2 r1 y" "a = h2 g (dev_of L w0) y" "readable (l2 s (dev_of L w0) y)"
              using seen_step[OF a'] by blast
            then show ?thesis
            proof cases
              case o
              then show ?thesis using ath_seen[OF v o] True by simp
            next
              case n
              then show ?thesis using hb True False by auto
            next
              case l1
              then show ?thesis using ath_h1 by simp
            next
              case l2
              then show ?thesis using True by auto
            qed
          qed
          then show ?thesis using fresh1[OF _ bw(1-3) hb(2)] hb(1) by simp
        qed
      next
        case False
        have h: "h1 g' (wg_of L v) y = h1 g (wg_of L v) y" using gv'(1) False by (cases i) (auto simp: w0_def)
        have rd0: "readable (l1 s (wg_of L v) y)" using exec_readable(1)[OF z(1)] rd l'(1) False by (auto simp: w0_def)
        have np: "\<not> iv_pend (instrs (compile S P) v) (pc s v)"
        proof (cases "v = t")
          case False
          then show ?thesis using np' pco by simp
        next
          case True
          have n1: "\<not> iv_pend xs (Suc n)" using np' True pc' by (simp add: xs_def)
          show ?thesis
          proof
            assume "iv_pend (instrs (compile S P) v) (pc s v)"
            then have p: "iv_pend xs n" using True by (simp add: xs_def n_def)
            then have "quiet i" using iv_seq_quiet[OF ivs nl] by (simp add: i_def)
            then obtain sc where "i = INVL1 sc" using n1 p iv_pend_Suc[of xs n] by (auto simp: i_def)
            then have "\<not> readable (l1 z w0 y)" using exec_readable(3)[OF z(1)] wg_in_scope[OF w0] by (simp add: w0_def)
            then show False using rd True l'(1) by (simp add: w0_def)
          qed
        qed
        have no2: "\<not> iv_pend xs (Suc n)" if "v = t" using np' that pc' by (simp add: xs_def)
        consider (o) "seen_wr S P s g v y a"
          | (n) "v = t" "\<not> done_ev S P s a" "\<exists>p. a = Acc t k p"
            "(((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y)) \<and> ga2 g' a = None \<and> h1 g' w0 y = a)
             \<or> ((\<exists>r. i = INCL2 r y) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L w0) y = a)"
          | (l1) "v = t" "\<exists>r1. i = LD r1 y \<or> i = INCL1 r1 y" "a = h1 g w0 y" "readable (l1 s w0 y)"
          | (l2) "v = t" "\<exists>r1. i = INCL2 r1 y" "a = h2 g (dev_of L w0) y" "readable (l2 s (dev_of L w0) y)"
          using seen_step[OF a'] by blast
        then show ?thesis
        proof cases
          case o
          have "sb L g a (h1 g (wg_of L v) y)" using wr_okD(2)[OF wr v o rd0 np] .
          then show ?thesis using sbo[OF wx_done[OF seen_wx[OF o]] wx_done[OF h1_wx[OF li rd0]]] h by simp
        next
          case n
          then show ?thesis using False no2 iv_pend_Suc[of xs n] by (auto simp: w0_def i_def)
        next
          case l1
          then show ?thesis using h False by (auto simp: w0_def)
        next
          case l2
          then show ?thesis using no2 iv_pend_Suc[of xs n] by (auto simp: i_def)
        qed
      qed
    next
      fix v y a assume v: "v \<in> src_threads P" and a': "seen_wr S P s' g' v y a"
        and rd: "readable (l2 s' (dev_of L (wg_of L v)) y)" and a2: "ga2 g' a \<noteq> None"
      show "sb L g' a (h2 g' (dev_of L (wg_of L v)) y)"
      proof (cases "dev_of L (wg_of L v) = dev_of L w0 \<and> (\<exists>r. i = INCL2 r y)")
        case True
        obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
          using step_wr[of y] True by blast
        obtain y0 where y0: "sloc P b = Some y0" "(((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' b = None \<and> h1 g' w0 y0 = b)
          \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' b = Some (gt g' b) \<and> h2 g' (dev_of L w0) y0 = b)"
          using wr_step[OF bw(1-3)] by blast
        have yy: "y0 = y" using y0(1) bw(4) by simp
        have hb: "h2 g' (dev_of L (wg_of L v)) y = b" "ga2 g' b \<noteq> None" using y0(2) True yy by auto
        show ?thesis
        proof (cases "a = b")
          case True
          then show ?thesis using hb by simp
        next
          case False
          have "(ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L w0)) \<and> (\<forall>m. ga2 g' a = Some m \<longrightarrow> m < clk g)"
          proof -
            consider (o) "seen_wr S P s g v y a"
              | (n) "v = t" "\<not> done_ev S P s a" "\<exists>p. a = Acc t k p"
                "(((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y)) \<and> ga2 g' a = None \<and> h1 g' w0 y = a)
                 \<or> ((\<exists>r. i = INCL2 r y) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L w0) y = a)"
              | (l1) "v = t" "\<exists>r1. i = LD r1 y \<or> i = INCL1 r1 y" "a = h1 g w0 y" "readable (l1 s w0 y)"
              | (l2) "v = t" "\<exists>r1. i = INCL2 r1 y" "a = h2 g (dev_of L w0) y" "readable (l2 s (dev_of L w0) y)"
              using seen_step[OF a'] by blast
            then show ?thesis
            proof cases
              case o
              then show ?thesis using ath_seen[OF v o] True unfolding ath_def by simp
            next
              case n
              then show ?thesis using hb True False by auto
            next
              case l1
              then show ?thesis using True by auto
            next
              case l2
              then show ?thesis using ath_h2 unfolding ath_def by simp
            qed
          qed
          then show ?thesis using fresh2[OF a2 _ _ bw(1-3) hb(2)] hb(1) by simp
        qed
      next
        case False
        have h: "h2 g' (dev_of L (wg_of L v)) y = h2 g (dev_of L (wg_of L v)) y" using gv'(2) False by (cases i) auto
        have rd0: "readable (l2 s (dev_of L (wg_of L v)) y)" using exec_readable(2)[OF z(1)] rd l'(2) False
          by (auto simp: w0_def)
        consider (o) "seen_wr S P s g v y a"
          | (n) "v = t" "\<not> done_ev S P s a" "\<exists>p. a = Acc t k p"
            "(((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y)) \<and> ga2 g' a = None \<and> h1 g' w0 y = a)
             \<or> ((\<exists>r. i = INCL2 r y) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L w0) y = a)"
          | (l1) "v = t" "\<exists>r1. i = LD r1 y \<or> i = INCL1 r1 y" "a = h1 g w0 y" "readable (l1 s w0 y)"
          | (l2) "v = t" "\<exists>r1. i = INCL2 r1 y" "a = h2 g (dev_of L w0) y" "readable (l2 s (dev_of L w0) y)"
          using seen_step[OF a'] by blast
        then show ?thesis
        proof cases
          case o
          have da: "done_ev S P s a" using wx_done[OF seen_wx[OF o]] .
          have "ga2 g a \<noteq> None" using a2 gs1 da by auto
          then have "sb L g a (h2 g (dev_of L (wg_of L v)) y)" using wr_okD(3)[OF wr v o rd0] by simp
          then show ?thesis using sbo[OF da wx_done[OF h2_wx[OF li rd0]]] h by simp
        next
          case n
          then show ?thesis using False a2 by (auto simp: w0_def)
        next
          case l1
          have da: "done_ev S P s a" using wx_done[OF h1_wx[OF li l1(4)]] l1(3) by simp
          have "ga2 g a \<noteq> None" using a2 gs1 da by auto
          then have "sb L g a (h2 g (dev_of L w0) y)" using l12_okD[OF lo l1(4) _ rd0[unfolded l1(1) w0_def[symmetric]]] l1(3) by simp
          then show ?thesis using sbo[OF da wx_done[OF h2_wx[OF li rd0]]] h l1(1) by (simp add: w0_def)
        next
          case l2
          then show ?thesis using False by (auto simp: w0_def)
        qed
      qed
    next
      fix a r assume ar: "(a, r) \<in> src_po P" "is_wr P a \<or> is_rd P a" "is_rd P r" "done_ev S P s' r" "sloc P a = sloc P r"
      obtain y where y: "sloc P r = Some y" using ar(3) rd_addr by (cases r) auto
      have ya: "sloc P a = Some y" using ar(5) y by simp
      have obo: "ob P g' a = ob P g a" if "done_ev S P s a" using that grf_old by (simp add: ob_def)
      show "sb L g' (ob P g' a) (grf g' r)"
      proof (cases "done_ev S P s r")
        case True
        have da: "done_ev S P s a" using po_done ar(1) True by blast
        have "sb L g (ob P g a) (grf g r)" using wr_okD(4)[OF wr ar(1-3) True ar(5)] .
        then show ?thesis
          using sbo[OF wx_done[OF ob_wx[OF ei ar(1,2) True ya]] wx_done[OF grf_wx[OF ei ar(3) True y]]]
            obo[OF da] grf_old[OF True] by simp
      next
        case False
        obtain p where rk: "r = Acc t k p" using newk ar(4) False by blast
        have p: "\<not> p" using ar(3) rk rd_part by (auto simp: acc_def)
        obtain k' p' where ak: "a = Acc t k' p'" "k' < k" using ar(1) rk p by (auto simp: src_po_def)
        have da: "done_ev S P s a" using ak by (simp add: k_def)
        have sa: "seen_wr S P s g t y (ob P g a)" using ob_seen[OF ei ar(2) da _ ya] ak by simp
        have rr: "r = Acc t k False" using rk p by simp
        obtain y1 r1 where y1: "sloc P (Acc t k False) = Some y1"
          "((i = LD r1 y1 \<or> i = INCL1 r1 y1) \<and> grf g' (Acc t k False) = h1 g w0 y1 \<and> readable (l1 s w0 y1))
            \<or> (i = INCL2 r1 y1 \<and> grf g' (Acc t k False) = h2 g (dev_of L w0) y1 \<and> readable (l2 s (dev_of L w0) y1))"
          using rd_step ar(3,4) rr by blast
        have yy: "y1 = y" using y1(1) y rr by simp
        have dob: "done_ev S P s (ob P g a)" using wx_done[OF seen_wx[OF sa]] .
        show ?thesis
        proof (cases "\<exists>r2. i = INCL2 r2 y")
          case True
          then have gr: "grf g' r = h2 g (dev_of L w0) y" "readable (l2 s (dev_of L w0) y)" using y1(2) yy rr by auto
          have "ga2 g (ob P g a) \<noteq> None" using fl2 sa True by blast
          then have "sb L g (ob P g a) (h2 g (dev_of L (wg_of L t)) y)" using wr_okD(3)[OF wr t sa] gr(2) by (simp add: w0_def)
          then show ?thesis using sbo[OF dob wx_done[OF h2_wx[OF li gr(2)]]] gr obo[OF da] by (simp add: w0_def)
        next
          case False
          then have gr: "i = LD r1 y \<or> i = INCL1 r1 y" "grf g' r = h1 g w0 y" "readable (l1 s w0 y)" using y1(2) yy rr by auto
          have vis: "visible i" using gr(1) by auto
          have "sb L g (ob P g a) (h1 g (wg_of L t) y)"
            using wr_okD(2)[OF wr t sa] gr(3) vnp[OF vis] by (simp add: w0_def xs_def n_def)
          then show ?thesis using sbo[OF dob wx_done[OF h1_wx[OF li gr(3)]]] gr obo[OF da] by (simp add: w0_def)
        qed
      qed
    next
      fix r e assume ar: "(r, e) \<in> src_po P" "is_rd P r" "is_wr P e" "done_ev S P s' e" "sloc P r = sloc P e"
      obtain y where y: "sloc P e = Some y" using ar(3) wr_loc by blast
      have yr: "sloc P r = Some y" using ar(5) y by simp
      show "grf g' r \<noteq> e \<and> sb L g' (grf g' r) e"
      proof (cases "done_ev S P s e")
        case True
        have dr: "done_ev S P s r" using po_done ar(1) True by blast
        have "sb L g (grf g r) e" using wr_okD(5)[OF wr ar(1-3) True ar(5)] .
        then show ?thesis
          using sbo[OF wx_done[OF grf_wx[OF ei ar(2) dr yr]] True] grf_old[OF dr] wr_okD(10)[OF wr ar(1-3) True ar(5)] by simp
      next
        case False
        obtain y0 where y0: "sloc P e = Some y0" "(((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' e = None \<and> h1 g' w0 y0 = e)
          \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' e = Some (gt g' e) \<and> h2 g' (dev_of L w0) y0 = e)"
          using wr_step[OF ar(3,4) False] by blast
        have yy: "y0 = y" using y0(1) y by simp
        obtain p where ek: "e = Acc t k p" using newk ar(4) False by blast
        \<comment> \<open>the write t's read read from: before the step, or the line the step read\<close>
        have hr: "ath w0 (grf g' r) \<and> ((\<exists>r2. i = INCL2 r2 y) \<longrightarrow> ga2 g' (grf g' r) \<noteq> None)"
        proof (cases "done_ev S P s r")
          case True
          have st: "sthread r = Some t" using ar(1) ek by (auto simp: src_po_def)
          have sr: "seen_wr S P s g t y (grf g r)" using read_seen[OF ei ar(2) True st yr] .
          have "ath w0 (grf g r)" using ath_seen[OF t sr] by (simp add: w0_def)
          moreover have "(\<exists>r2. i = INCL2 r2 y) \<longrightarrow> ga2 g' (grf g r) \<noteq> None"
            using fl2[OF _ sr] gs1 wx_done[OF seen_wx[OF sr]] by auto
          ultimately show ?thesis using grf_old[OF True] by simp
        next
          case nr: False
          obtain q where rk: "r = Acc t k q" using newk po_done[OF ar(1,4)] nr by blast
          have "\<not> q" using ar(2) rk rd_part by (auto simp: acc_def)
          then have rr: "r = Acc t k False" using rk by simp
          obtain y1 r1 where y1: "sloc P (Acc t k False) = Some y1"
            "((i = LD r1 y1 \<or> i = INCL1 r1 y1) \<and> grf g' (Acc t k False) = h1 g w0 y1 \<and> readable (l1 s w0 y1))
              \<or> (i = INCL2 r1 y1 \<and> grf g' (Acc t k False) = h2 g (dev_of L w0) y1 \<and> readable (l2 s (dev_of L w0) y1))"
            using rd_step ar(2) po_done[OF ar(1,4)] rr by blast
          have "y1 = y" using y1(1) yr rr by simp
          then show ?thesis using y1(2) rr ath_h1 ath_h2 by auto
        qed
        have "grf g' r \<noteq> e" using hr False unfolding ath_def by auto
        moreover have "sb L g' (grf g' r) e"
        proof (cases "\<exists>r2. i = INCL2 r2 y")
          case True
          have "ga2 g' e \<noteq> None" using y0(2) yy True by auto
          then show ?thesis using fresh2[of "grf g' r" e] hr True ar(3,4) False unfolding ath_def by auto
        next
          case nI: False
          have "ga2 g' e = None" using y0(2) yy nI by auto
          then show ?thesis using fresh1[of "grf g' r" e] hr ar(3,4) False by auto
        qed
        ultimately show ?thesis by blast
      qed
    next
      fix v y a assume v: "v \<in> src_threads P" and a': "seen_wr S P s' g' v y a"
      consider (o) "seen_wr S P s g v y a"
        | (n) "v = t" "\<not> done_ev S P s a" "\<exists>p. a = Acc t k p"
          "(((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y)) \<and> ga2 g' a = None \<and> h1 g' w0 y = a)
           \<or> ((\<exists>r. i = INCL2 r y) \<and> ga2 g' a = Some (gt g' a) \<and> h2 g' (dev_of L w0) y = a)"
        | (l1) "v = t" "\<exists>r1. i = LD r1 y \<or> i = INCL1 r1 y" "a = h1 g w0 y" "readable (l1 s w0 y)"
        | (l2) "v = t" "\<exists>r1. i = INCL2 r1 y" "a = h2 g (dev_of L w0) y" "readable (l2 s (dev_of L w0) y)"
        using seen_step[OF a'] by blast
      then show "(ga2 g' a = None \<longrightarrow> ewg L a = Some (wg_of L v)) \<and> (ga3 g' a = None \<longrightarrow> dv L a = Some (dev_of L (wg_of L v)))"
      proof cases
        case o
        then show ?thesis using ath_seen[OF v o] unfolding ath_def by blast
      next
        case n
        then show ?thesis using ewk by (auto simp: w0_def)
      next
        case l1
        then show ?thesis using ath_h1[OF l1(4)] unfolding ath_def by (simp add: w0_def)
      next
        case l2
        then show ?thesis using ath_h2[OF l2(4)] unfolding ath_def by (simp add: w0_def)
      qed
    next
      show "home_ok L s' g'" unfolding home_ok_def
      proof (intro conjI allI impI)
        fix w y assume rw: "readable (l1 s' w y)" and n: "ga2 g' (h1 g' w y) = None"
        show "ewg L (h1 g' w y) = Some w"
        proof (cases "w = w0 \<and> ((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y))")
          case True
          obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
            using step_wr[of y] True by blast
          then have "h1 g' w0 y = b" using wr_step[OF bw(1-3)] True by auto
          then show ?thesis using newk[OF bw(2,3)] ewk True by auto
        next
          case False
          have "h1 g' w y = h1 g w y" using gv'(1) False by (cases i) auto
          moreover have "readable (l1 s w y)" using exec_readable(1)[OF z(1)] rw l'(1) False by (auto simp: w0_def)
          ultimately show ?thesis using home_okD(1)[OF ho] n gs1 wx_done[OF h1_wx[OF li]] by metis
        qed
      next
        fix w y assume rw: "readable (l1 s' w y)" and n: "ga3 g' (h1 g' w y) = None"
        show "dv L (h1 g' w y) = Some (dev_of L w)"
        proof (cases "w = w0 \<and> ((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y))")
          case True
          obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
            using step_wr[of y] True by blast
          then have "h1 g' w0 y = b" using wr_step[OF bw(1-3)] True by auto
          then show ?thesis using newk[OF bw(2,3)] ewk True by auto
        next
          case False
          have "h1 g' w y = h1 g w y" using gv'(1) False by (cases i) auto
          moreover have "readable (l1 s w y)" using exec_readable(1)[OF z(1)] rw l'(1) False by (auto simp: w0_def)
          ultimately show ?thesis using home_okD(2)[OF ho] n gs1 wx_done[OF h1_wx[OF li]] by metis
        qed
      next
        fix d y assume rw: "readable (l2 s' d y)"
        show "ga2 g' (h2 g' d y) \<noteq> None"
        proof (cases "d = dev_of L w0 \<and> (\<exists>r. i = INCL2 r y)")
          case True
          obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
            using step_wr[of y] True by blast
          then show ?thesis using wr_step[OF bw(1-3)] True by auto
        next
          case False
          have "h2 g' d y = h2 g d y" using gv'(2) False by (cases i) auto
          moreover have "readable (l2 s d y)" using exec_readable(2)[OF z(1)] rw l'(2) False by (auto simp: w0_def)
          ultimately show ?thesis using home_okD(3)[OF ho] gs1 wx_done[OF h2_wx[OF li]] by metis
        qed
      next
        fix d y assume rw: "readable (l2 s' d y)" and n: "ga3 g' (h2 g' d y) = None"
        show "dv L (h2 g' d y) = Some d"
        proof (cases "d = dev_of L w0 \<and> (\<exists>r. i = INCL2 r y)")
          case True
          obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
            using step_wr[of y] True by blast
          then have "h2 g' (dev_of L w0) y = b" using wr_step[OF bw(1-3)] True by auto
          then show ?thesis using newk[OF bw(2,3)] ewk True by auto
        next
          case False
          have "h2 g' d y = h2 g d y" using gv'(2) False by (cases i) auto
          moreover have "readable (l2 s d y)" using exec_readable(2)[OF z(1)] rw l'(2) False by (auto simp: w0_def)
          ultimately show ?thesis using home_okD(4)[OF ho] n gs1 wx_done[OF h2_wx[OF li]] by metis
        qed
      qed
    next
      show "l12_ok L s' g'" unfolding l12_ok_def
      proof (intro allI impI)
        fix w y assume a: "readable (l1 s' w y) \<and> ga2 g' (h1 g' w y) \<noteq> None \<and> readable (l2 s' (dev_of L w) y)"
        have nw: "\<not> (w = w0 \<and> ((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y)))"
        proof
          assume True: "w = w0 \<and> ((\<exists>v'. i = ST v' y) \<or> (\<exists>r. i = INCL1 r y))"
          obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
            using step_wr[of y] True by blast
          then have "h1 g' w0 y = b" "ga2 g' b = None" using wr_step[OF bw(1-3)] True by auto
          then show False using a True by simp
        qed
        have h1e: "h1 g' w y = h1 g w y" using gv'(1) nw by (cases i) auto
        have rw: "readable (l1 s w y)" using exec_readable(1)[OF z(1)] a l'(1) nw by (auto simp: w0_def)
        have wh: "wx S P s y (h1 g w y)" using h1_wx[OF li rw] .
        have dh: "done_ev S P s (h1 g w y)" using wx_done[OF wh] .
        have a2: "ga2 g (h1 g w y) \<noteq> None" using a h1e gs1 dh by auto
        show "sb L g' (h1 g' w y) (h2 g' (dev_of L w) y)"
        proof (cases "dev_of L w = dev_of L w0 \<and> (\<exists>r. i = INCL2 r y)")
          case True
          obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
            using step_wr[of y] True by blast
          then have hb: "h2 g' (dev_of L w0) y = b" "ga2 g' b \<noteq> None" using wr_step[OF bw(1-3)] True by auto
          have "ath w (h1 g w y)" by (rule ath_old[OF wh]) (use home_okD(1,2)[OF ho rw] in auto)
          then have "(ga3 g' (h1 g w y) = None \<longrightarrow> dv L (h1 g w y) = Some (dev_of L w0)) \<and> (\<forall>m. ga2 g' (h1 g w y) = Some m \<longrightarrow> m < clk g)"
            using True unfolding ath_def by simp
          then show ?thesis using fresh2[of "h1 g w y" b] a2 gs1 dh bw hb h1e True by auto
        next
          case False
          have "h2 g' (dev_of L w) y = h2 g (dev_of L w) y" using gv'(2) False by (cases i) auto
          moreover have r2: "readable (l2 s (dev_of L w) y)" using exec_readable(2)[OF z(1)] a l'(2) False by (auto simp: w0_def)
          moreover have "sb L g (h1 g w y) (h2 g (dev_of L w) y)" using l12_okD[OF lo rw a2 r2] .
          ultimately show ?thesis using sbo[OF dh wx_done[OF h2_wx[OF li r2]]] h1e by simp
        qed
      qed
    qed
  qed
  \<comment> \<open>an increment at the L2 puts the newest write of its device in the line\<close>
  have l2': "l2_ok L S P s' g'" if lo: "l2_ok L S P s g"
  proof -
    have c: "0 < clk g" using lo by (simp add: l2_ok_def)
    have gs0: "clk g \<le> clk g'" using gs by (simp add: gstep_def)
    have l2z: "l2 s' = l2 z" using z(2) by (simp add: set_pc_def)
    show ?thesis unfolding l2_ok_def
    proof (intro conjI allI impI)
      show "0 < clk g'" using c gs0 by simp
      fix d y e assume a: "readable (l2 s' d y) \<and> wx S P s' y e \<and> ga2 g' e \<noteq> None \<and> dv L e = Some d"
      \<comment> \<open>a write the step performs with a time at the L2 is the increment's, at its line\<close>
      have new2: "\<exists>r. i = INCL2 r y \<and> d = dev_of L w0 \<and> h2 g' d y = e \<and> ga2 g' e = Some (gt g' e) \<and> clk g < gt g' e
          \<and> ga3 g' e = None" if nd: "\<not> done_ev S P s e"
      proof -
        have ni: "\<forall>z. e \<noteq> Init z" using nd by auto
        then have ew: "is_wr P e" "done_ev S P s' e" using wx_perf[of S P s' y e] a by blast+
        obtain y0 where y0: "sloc P e = Some y0" "\<exists>p. e = Acc t k p"
          "(((\<exists>v. i = ST v y0) \<or> (\<exists>r. i = INCL1 r y0)) \<and> ga2 g' e = None \<and> h1 g' w0 y0 = e)
            \<or> ((\<exists>r. i = INCL2 r y0) \<and> ga2 g' e = Some (gt g' e) \<and> h2 g' (dev_of L w0) y0 = e)"
          using wr_step[OF ew nd] by blast
        have "y0 = y" using y0(1) wx_loc[of S P s' y e] a by simp
        moreover have "d = dev_of L w0" using a y0(2) ewk by auto
        moreover have "clk g < gt g' e" "ga3 g' e = None" using gs2r[OF ew nd] by blast+
        ultimately show ?thesis using y0(3) a by auto
      qed
      show "sb L g' e (h2 g' d y)"
      proof (cases "d = dev_of L w0 \<and> (\<exists>r. i = INCL2 r y)")
        case True
        then obtain r where i2: "i = INCL2 r y" by blast
        obtain b where bw: "is_wr P b" "done_ev S P s' b" "\<not> done_ev S P s b" "sloc P b = Some y"
          using step_wr[of y] i2 by blast
        then have hb: "h2 g' d y = b" "ga2 g' b = Some (gt g' b)" using wr_step[OF bw(1-3)] True by auto
        have tb: "ga2 g' b = Some (gt g' b)" "clk g < gt g' b" "ga3 g' b = None"
          using gs2r[OF bw(1-3)] hb(2) by auto
        show ?thesis
        proof (cases "done_ev S P s e")
          case de: True
          have we: "wx S P s y e" using a de by (auto simp: wx_def)
          have o: "ga2 g' e = ga2 g e" "ga3 g' e = ga3 g e" using gs1 de by blast+
          have "the (ga2 g e) < clk g" using a o times_lt[OF ti c we] by auto
          moreover obtain p where "b = Acc t k p" using newk[OF bw(2,3)] by blast
          ultimately show ?thesis using sb_fresh2[of g' e L d "gt g' b" b] a o tb hb(1) True ewk by simp
        next
          case False
          then show ?thesis using new2 by auto
        qed
      next
        case False
        have h: "h2 g' d y = h2 g d y" using gv'(2) False by (cases i) auto
        have r0: "readable (l2 s d y)" using exec_readable(2)[OF z(1)] a l2z False by (auto simp: w0_def)
        have de: "done_ev S P s e" using new2 False by blast
        have we: "wx S P s y e" using a de by (auto simp: wx_def)
        have o: "ga2 g' e = ga2 g e" using gs1 de by blast
        have "sb L g e (h2 g d y)" using l2_okD[OF lo r0 we] a o by simp
        then show ?thesis using sbo[OF de wx_done[OF h2_wx[OF li0 r0]]] h by simp
      qed
    qed
  qed
  show ?thesis using gi fo' so' ww' wr' l2' gs gv by (auto simp: oinv_def i_def xs_def n_def)
qed

lemma oinv_reachable:
  assumes "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
  shows "\<exists>g. ginv L S P s g \<and> oinv L S P s g \<and> (l2_invalidated S B \<longrightarrow> wr_ok L S P s g) \<and> l2_ok L S P s g"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using assms(1) by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    then show ?case using ginv_initial oinv_initial wr_ok_initial l2_ok_initial by blast
  next
    case (step s1 s2)
    then obtain g where g: "ginv L S P s1 g" "oinv L S P s1 g" "l2_invalidated S B \<longrightarrow> wr_ok L S P s1 g"
      "l2_ok L S P s1 g" by blast
    have "threads (compile S P) = src_threads P" by (simp add: compile_def)
    then consider (thr) t where "t \<in> src_threads P" "step_thread L (compile S P) t s1 = Some s2"
      | (env) "s2 \<in> env_step L wb s1"
      using step.hyps(2) unfolding step_def by blast
    then show ?case
    proof cases
      case thr
      then show ?thesis using oinv_thread[OF g(1,2) thr rows wp] g(3,4) by blast
    next
      case env
      then show ?thesis using oinv_env[OF g(1,2)] g(3,4) by blast
    qed
  qed
qed

section \<open>The theorems\<close>

text \<open>A thread that has flushed its L1 and waited for its marker, with
  only quiet instructions since, has no write it knows waiting in its L1
  (its own, and those of its work-group before it in happens-before): each
  has reached its device's L2 ([RSP15] sec. 5.2's FLUSH, cumulative).\<close>
theorem flushed_reached_l2:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" and wp: "well_placed L P"
    and t: "t \<in> src_threads P" and fl: "flushed (instrs (compile S P) t) (pc s t)" and nu: "\<not> unflushed L s t"
  shows "\<exists>g. ginv L S P s g \<and> (\<forall>x e. wx S P s x e \<and> knows L S P s g t e \<and> ewg L e = Some (wg_of L t) \<longrightarrow> ga2 g e \<noteq> None)"
proof -
  obtain g where g: "ginv L S P s g" "oinv L S P s g" using oinv_reachable[OF reach rows wp] by blast
  have w0: "wg_of L t \<in> wgs L" using wp t by (simp add: well_placed_def)
  have "ga2 g e \<noteq> None" if "wx S P s x e" "knows L S P s g t e" "ewg L e = Some (wg_of L t)" for x e
  proof
    assume "ga2 g e = None"
    then have "e \<in> pend1 L S P s g (wg_of L t) x" using that by (simp add: pend1_def)
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


text \<open>Coherence agrees with program order on each location (herd's
  uniproc shapes, [HRF14]'s coherence): a thread's writes of a location
  are coherence-ordered as it performs them; its read reads from its own
  last earlier write of the location or from a coherence-later write; of
  two of its reads of a location the later reads from the same write or
  from a coherence-later one; a read reads from a write coherence-before
  each write of the location its thread performs after it.\<close>
definition po_loc_ok :: "src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel \<Rightarrow> bool" where
  "po_loc_ok P rfw cr \<longleftrightarrow>
     (\<forall>e e'. (e, e') \<in> src_po P \<and> is_wr P e \<and> is_wr P e' \<and> sloc P e = sloc P e' \<longrightarrow> (e, e') \<in> cr)
   \<and> (\<forall>a r. (a, r) \<in> src_po P \<and> is_wr P a \<and> is_rd P r \<and> sloc P a = sloc P r \<longrightarrow> a = rfw r \<or> (a, rfw r) \<in> cr)
   \<and> (\<forall>a r. (a, r) \<in> src_po P \<and> is_rd P a \<and> is_rd P r \<and> sloc P a = sloc P r
        \<longrightarrow> rfw a = rfw r \<or> (rfw a, rfw r) \<in> cr)
   \<and> (\<forall>r e. (r, e) \<in> src_po P \<and> is_rd P r \<and> is_wr P e \<and> sloc P r = sloc P e \<longrightarrow> (rfw r, e) \<in> cr)"

text \<open>A candidate's program order and communication on each location:
  program order between accesses of one location, reads-from, coherence and
  from-reads (a read before every coherence-successor of its write). Its
  acyclicity is SC per location (herd's uniproc check).\<close>
definition com_loc :: "src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel \<Rightarrow> sev rel" where
  "com_loc P rfw cr = {(a, b). (a, b) \<in> src_po P \<and> sloc P a = sloc P b}
     \<union> {(rfw r, r) | r. is_rd P r} \<union> cr \<union> {(r, w) | r w. is_rd P r \<and> (rfw r, w) \<in> cr}"

lemma src_po_trans: "trans (src_po P)"
  by (auto simp: trans_def src_po_def)

lemma src_po_irrefl: "(a, a) \<notin> src_po P"
  by (auto simp: src_po_def)

text \<open>A relation whose every edge raises a key in a strict order, or keeps it
  and is an edge of an acyclic transitive relation, is acyclic.\<close>
lemma acyclic_by_key:
  assumes lt: "trans lt" "irrefl lt" and q: "trans Q" "\<forall>a. (a, a) \<notin> Q"
    and sub: "\<forall>a b. (a, b) \<in> R \<longrightarrow> (k a, k b) \<in> lt \<or> (k a = k b \<and> (a, b) \<in> Q)"
  shows "acyclic R"
proof -
  have "(k a, k b) \<in> lt \<or> (k a = k b \<and> (a, b) \<in> Q)" if "(a, b) \<in> R\<^sup>+" for a b
    using that
  proof induction
    case (base b)
    then show ?case using sub by blast
  next
    case (step b c)
    have "(k b, k c) \<in> lt \<or> (k b = k c \<and> (b, c) \<in> Q)" using sub step(2) by blast
    then show ?case using step(3) lt(1) q(1) unfolding trans_def by metis
  qed
  then show ?thesis using lt(2) q(2) unfolding acyclic_def irrefl_def by blast
qed

text \<open>Program order agreeing with reads-from and coherence on each location
  (po_loc_ok) makes a candidate SC per location: place each write at
  itself and each read just after the write it reads from; every edge of
  com_loc then moves forward, or stays between two reads of one write in
  program order.\<close>
theorem po_loc_acyclic:
  assumes c: "cand_ok P rfw cr v" and po: "po_loc_ok P rfw cr"
  shows "acyclic (com_loc P rfw cr)"
proof -
  have rf: "is_wr P (rfw r) \<and> sloc P (rfw r) = sloc P r" if "is_rd P r" for r
    using c that by (simp add: cand_ok_def)
  have cw: "is_wr P w \<and> is_wr P w'" if "(w, w') \<in> cr" for w w'
    using c that by (auto simp: cand_ok_def)
  have ct: "trans cr" and ci: "irrefl cr" using c by (simp_all add: cand_ok_def)
  define k :: "sev \<Rightarrow> sev \<times> nat" where "k e = (if is_rd P e then (rfw e, 1) else (e, 0))" for e
  define lt :: "(sev \<times> nat) rel" where "lt = {((x, i), (y, j)). (x, y) \<in> cr \<or> (x = y \<and> i < j)}"
  have lt_trans: "trans lt" using ct unfolding lt_def trans_def by auto
  have lt_irrefl: "irrefl lt" using ci unfolding lt_def irrefl_def by auto
  have kw: "k w = (w, 0)" if "is_wr P w" for w using that rd_not_wr unfolding k_def by auto
  have kr: "k r = (rfw r, 1)" if "is_rd P r" for r using that unfolding k_def by simp
  have ev: "is_rd P e \<or> is_wr P e" if "(e, e') \<in> src_po P \<or> (e', e) \<in> src_po P" for e e'
    using that by (auto simp: src_po_def acc_def)
  have "(k a, k b) \<in> lt \<or> (k a = k b \<and> (a, b) \<in> src_po P)" if e: "(a, b) \<in> com_loc P rfw cr" for a b
  proof -
    consider (p) "(a, b) \<in> src_po P" "sloc P a = sloc P b" | (r) "is_rd P b" "a = rfw b" | (o) "(a, b) \<in> cr"
      | (f) "is_rd P a" "(rfw a, b) \<in> cr"
      using e unfolding com_loc_def by blast
    then show ?thesis
    proof cases
      case p
      have ea: "is_rd P a \<or> is_wr P a" and eb: "is_rd P b \<or> is_wr P b" using ev p(1) by blast+
      show ?thesis
      proof (cases "is_rd P a")
        case ra: True
        show ?thesis
        proof (cases "is_rd P b")
          case True
          then have "rfw a = rfw b \<or> (rfw a, rfw b) \<in> cr" using po p ra unfolding po_loc_ok_def by blast
          then show ?thesis using kr[OF ra] kr[OF True] p(1) unfolding lt_def by auto
        next
          case False
          then have wb: "is_wr P b" using eb by simp
          then have "(rfw a, b) \<in> cr" using po p ra unfolding po_loc_ok_def by blast
          then show ?thesis using kr[OF ra] kw[OF wb] unfolding lt_def by auto
        qed
      next
        case False
        then have wa: "is_wr P a" using ea by simp
        show ?thesis
        proof (cases "is_rd P b")
          case True
          then have "a = rfw b \<or> (a, rfw b) \<in> cr" using po p wa unfolding po_loc_ok_def by blast
          then show ?thesis using kw[OF wa] kr[OF True] unfolding lt_def by auto
        next
          case False
          then have wb: "is_wr P b" using eb by simp
          then have "(a, b) \<in> cr" using po p wa unfolding po_loc_ok_def by blast
          then show ?thesis using kw[OF wa] kw[OF wb] unfolding lt_def by auto
        qed
      qed
    next
      case r
      then show ?thesis using kr[OF r(1)] kw rf[OF r(1)] unfolding lt_def by auto
    next
      case o
      then show ?thesis using kw cw[OF o] unfolding lt_def by auto
    next
      case f
      then show ?thesis using kr[OF f(1)] kw cw[OF f(2)] unfolding lt_def by auto
    qed
  qed
  then show ?thesis
    using acyclic_by_key[where R = "com_loc P rfw cr" and k = k and Q = "src_po P", OF lt_trans lt_irrefl src_po_trans]
      src_po_irrefl by blast
qed

text \<open>For a scheme whose increments at the L2 are also followed by an
  invalidation of the L1 (rsp-new's), every final state shows the outcome
  of a candidate whose reads-from and coherence agree with program order on
  each location (po_loc_ok), for every program of any length and thread
  count, on every layout, under both write-back policies, racy or not.\<close>
text \<open>In a final state with the invariants, the exhibited candidate meets
  po_loc_ok.\<close>
lemma final_po_loc:
  assumes g: "ginv L S P s g" "oinv L S P s g" "wr_ok L S P s g" and fin: "is_final L (compile S P) s"
    and wp: "well_placed L P" and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
  shows "po_loc_ok P (grf g) (run_co P g)"
proof -
  note ff = final_facts[OF g(1) fin wp rows(1-3)]
  have ti: "time_inv S P s g" and ei: "ev_inv S P s g" using g(1) by (simp_all add: ginv_def)
  have c: "0 < clk g" using wr_okD(1)[OF g(3)] .
  have dn: "done_ev S P s r" if "is_rd P r \<or> is_wr P r" for r
  proof -
    have "is_ev P r" using that by (cases r) auto
    then show ?thesis using ff(2) by blast
  qed
  have rf: "is_wr P (grf g r) \<and> sloc P (grf g r) = sloc P r" if "is_rd P r" for r
    using ev_parts(2)[OF ei] that dn by blast
  \<comment> \<open>at the end every write has reached memory, and settled coherence is the exhibited one\<close>
  have co: "e = h \<or> (e, h) \<in> run_co P g"
    if sbe: "sb L g e h" and w: "is_wr P e" "is_wr P h" "sloc P e = Some x" "sloc P h = Some x" for e h x
  proof -
    have we: "wx S P s x e \<and> ga3 g e \<noteq> None" and wh: "wx S P s x h \<and> ga3 g h \<noteq> None"
      using ff(3) w by blast+
    have "ga2 g e \<noteq> None" "ga2 g h \<noteq> None"
      using we wh times_lt[OF ti c conjunct1[OF we]] times_lt[OF ti c conjunct1[OF wh]] by auto
    then have o: "e = h \<or> klt (key g e) (key g h)" using sb_final sbe we wh by blast
    have "\<forall>z. h \<noteq> Init z" if lt: "klt (key g e) (key g h)"
      using lt klt_zero ti by (auto simp: time_inv_def key_def)
    then show ?thesis using o w by (auto simp: run_co_def)
  qed
  have ww: "(e, e') \<in> run_co P g"
    if a: "(e, e') \<in> src_po P" "is_wr P e" "is_wr P e'" "sloc P e = sloc P e'" for e e'
  proof -
    obtain x where x: "sloc P e' = Some x" using a(3) wr_loc by blast
    have de: "done_ev S P s e'" using dn a(3) by blast
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
  have wr: "a = grf g r \<or> (a, grf g r) \<in> run_co P g"
    if a: "(a, r) \<in> src_po P" "is_wr P a" "is_rd P r" "sloc P a = sloc P r" for a r
  proof -
    obtain x where x: "sloc P a = Some x" using a(2) wr_loc by blast
    have "sb L g (ob P g a) (grf g r)" using wr_okD(4)[OF g(3) a(1) disjI1[OF a(2)] a(3) dn a(4)] a(3) by blast
    then have "sb L g a (grf g r)" using ob_wr[OF a(2)] by simp
    then show ?thesis using co[of a "grf g r" x] a(2,4) rf[OF a(3)] x by simp
  qed
  have rr: "grf g a = grf g r \<or> (grf g a, grf g r) \<in> run_co P g"
    if a: "(a, r) \<in> src_po P" "is_rd P a" "is_rd P r" "sloc P a = sloc P r" for a r
  proof -
    obtain x where x: "sloc P r = Some x" using a(3) rd_addr by (cases r) auto
    have "sb L g (ob P g a) (grf g r)" using wr_okD(4)[OF g(3) a(1) disjI2[OF a(2)] a(3) dn a(4)] a(3) by blast
    then have "sb L g (grf g a) (grf g r)" using ob_rd[OF a(2)] by simp
    then show ?thesis using co[of "grf g a" "grf g r" x] rf[OF a(2)] rf[OF a(3)] a(4) x by simp
  qed
  have rw: "(grf g r, e) \<in> run_co P g"
    if a: "(r, e) \<in> src_po P" "is_rd P r" "is_wr P e" "sloc P r = sloc P e" for r e
  proof -
    obtain x where x: "sloc P e = Some x" using a(3) wr_loc by blast
    have de: "done_ev S P s e" using dn a(3) by blast
    have "sb L g (grf g r) e" "grf g r \<noteq> e" using wr_okD(5,10)[OF g(3) a(1-3) de a(4)] by blast+
    then show ?thesis using co[of "grf g r" e x] rf[OF a(2)] a(3,4) x by simp
  qed
  show ?thesis using ww wr rr rw unfolding po_loc_ok_def by blast
qed

theorem machine_candidate_po_loc:
  assumes rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B"
    and wp: "well_placed L P"
    and reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))" and fin: "is_final L (compile S P) s"
  shows "\<exists>g. cand_ok P (grf g) (run_co P g) (gv g) \<and> is_outcome P (run_co P g) (gv g) (regs s, mem s)
     \<and> po_loc_ok P (grf g) (run_co P g)"
proof -
  obtain g where g: "ginv L S P s g" "oinv L S P s g" "wr_ok L S P s g"
    using oinv_reachable[OF reach rows(1-4) wp] rows(5) by blast
  show ?thesis using final_candidate[OF rows(1-3) wp g(1) fin] final_po_loc[OF g fin wp rows(1-3)] by blast
qed

text \<open>So every outcome of the machine is the outcome of a candidate that
  meets po_loc_ok and is SC per location (po_loc_acyclic).\<close>
corollary machine_outcomes_po_loc:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "well_placed L P"
  shows "outcomes L wb (compile S P) (initial (src_init P))
    \<subseteq> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> po_loc_ok P rfw co
         \<and> acyclic (com_loc P rfw co)}"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))" "is_final L (compile S P) s"
    "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  then show "ob \<in> {ob. \<exists>rfw co v. cand_ok P rfw co v \<and> is_outcome P co v ob \<and> po_loc_ok P rfw co
         \<and> acyclic (com_loc P rfw co)}"
    using machine_candidate_po_loc[OF assms(1-5) assms(6) s(1,2)] po_loc_acyclic by blast
qed

end
