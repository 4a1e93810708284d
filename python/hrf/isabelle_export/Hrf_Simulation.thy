(* hrf base theory: a general simulation of the machine of Hrf_Machine by
   the sequentially consistent (SC) semantics of source programs, for every
   program, of any length and any number of threads, on any layout, whose
   every location is accessed by the threads of one work-group (its home;
   locations of different homes may sit on different devices) through rows
   whose only data instruction is an L1 access (LD, ST, INCL1) beside
   flushes, invalidations and locks. Step (3) of docs/isabelle.md's plan
   for that class: the machine's caches keep, for each location, one
   current value (lv), which every L1 access of the home work-group reads
   and writes, whatever the fetches, write-backs (FIFO or any order),
   evictions and invalidations in between. Written by hand, every proof
   complete. *)
theory Hrf_Simulation
  imports Hrf_Mapping
begin

section \<open>The SC semantics of source programs\<close>

text \<open>Every operation is performed at once on one memory, the threads'
  operations interleaved in every order (SC; the source
  model's strongest reading, whose outcomes every model of hrf allows).\<close>
record sc_state =
  sc_mem :: "addr \<Rightarrow> int"
  sc_regs :: "tid \<Rightarrow> reg \<Rightarrow> int"
  sc_pc :: "tid \<Rightarrow> nat"

definition sc_set_reg :: "tid \<Rightarrow> reg \<Rightarrow> int \<Rightarrow> sc_state \<Rightarrow> sc_state" where
  "sc_set_reg t r v \<sigma> = \<sigma>\<lparr>sc_regs := (sc_regs \<sigma>)(t := (sc_regs \<sigma> t)(r := v))\<rparr>"

fun sc_exec :: "tid \<Rightarrow> src_instr \<Rightarrow> sc_state \<Rightarrow> sc_state" where
  "sc_exec t (Op (Load sc rm) r x) \<sigma> = sc_set_reg t r (sc_mem \<sigma> x) \<sigma>"
| "sc_exec t (Op (Store sc rm) r x) \<sigma> = \<sigma>\<lparr>sc_mem := (sc_mem \<sigma>)(x := sc_regs \<sigma> t r)\<rparr>"
| "sc_exec t (Op (FetchInc sc rm) r x) \<sigma> =
     (sc_set_reg t r (sc_mem \<sigma> x) \<sigma>)\<lparr>sc_mem := (sc_mem \<sigma>)(x := sc_mem \<sigma> x + 1)\<rparr>"
| "sc_exec t (SetReg r v) \<sigma> = sc_set_reg t r v \<sigma>"

lemma sc_exec_pc [simp]: "sc_pc (sc_exec t c \<sigma>) = sc_pc \<sigma>"
  by (cases "(t, c, \<sigma>)" rule: sc_exec.cases) (simp_all add: sc_set_reg_def)

definition sc_step :: "src_program \<Rightarrow> sc_state rel" where
  "sc_step P = {(\<sigma>, \<sigma>'). \<exists>t \<in> src_threads P. sc_pc \<sigma> t < length (src_code P t)
      \<and> \<sigma>' = (sc_exec t (src_code P t ! sc_pc \<sigma> t) \<sigma>)\<lparr>sc_pc := (sc_pc \<sigma>)(t := Suc (sc_pc \<sigma> t))\<rparr>}"

definition sc_initial :: "src_program \<Rightarrow> sc_state" where
  "sc_initial P = \<lparr>sc_mem = src_init P, sc_regs = (\<lambda>_ _. 0), sc_pc = (\<lambda>_. 0)\<rparr>"

definition sc_outcomes :: "src_program \<Rightarrow> outcome set" where
  "sc_outcomes P = (\<lambda>\<sigma>. (sc_regs \<sigma>, sc_mem \<sigma>)) `
     {\<sigma>. (sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>* \<and> (\<forall>t \<in> src_threads P. sc_pc \<sigma> t \<ge> length (src_code P t))}"

section \<open>Rows whose one data instruction is an L1 access\<close>

text \<open>The instruction a source operation's row performs its access with,
  in the L1 (the register moves of a program are MOVs).\<close>
definition access :: "src_op \<Rightarrow> reg \<Rightarrow> addr \<Rightarrow> instr" where
  "access a r x = (case a of Load _ _ \<Rightarrow> LD r x | Store _ _ \<Rightarrow> ST (ER r) x | FetchInc _ _ \<Rightarrow> INCL1 r x)"

fun src_access :: "src_instr \<Rightarrow> instr" where
  "src_access (Op a r x) = access a r x"
| "src_access (SetReg r v) = MOV r (EC v)"

text \<open>Visible instructions read or write data or registers; quiet ones
  (flushes, invalidations, locks) change neither and go on to the next.\<close>
fun visible :: "instr \<Rightarrow> bool" where
  "visible (LD _ _) = True" | "visible (ST _ _) = True" | "visible (INCL1 _ _) = True"
| "visible (INCL2 _ _) = True" | "visible (MOV _ _) = True" | "visible _ = False"

fun quiet :: "instr \<Rightarrow> bool" where
  "quiet (FLUL1 _) = True" | "quiet (FLUL2 _) = True" | "quiet (INVL1 _) = True"
| "quiet (INVL2 _) = True" | "quiet (LK _) = True" | "quiet (UNLK _) = True"
| "quiet (LKrmw _) = True" | "quiet (UNLKrmw _) = True" | "quiet _ = False"

definition l1_row :: "src_op \<Rightarrow> row \<Rightarrow> bool" where
  "l1_row a rw \<longleftrightarrow> (\<forall>r x. filter visible (rw r x) = [access a r x] \<and> (\<forall>i \<in> set (rw r x). visible i \<or> quiet i))"

text \<open>The scheme has an L1 row for each operation of A.\<close>
definition l1_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "l1_rows S A \<longleftrightarrow> (\<forall>a \<in> A. \<exists>rw. S a = Some rw \<and> l1_row a rw)"

text \<open>Each location x is accessed only by threads of its home work-group h x.\<close>
definition homed :: "layout \<Rightarrow> (addr \<Rightarrow> wid) \<Rightarrow> src_program \<Rightarrow> bool" where
  "homed L h P \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>i \<in> set (src_code P t). \<forall>a r x. i = Op a r x \<longrightarrow> wg_of L t = h x)"

lemma compiled_code_both:
  assumes "l1_rows S A" "\<forall>i \<in> set c. op_of i \<subseteq> A"
  shows "filter visible (concat (map (compile_instr S) c)) = map src_access c
         \<and> (\<forall>i \<in> set (concat (map (compile_instr S) c)). visible i \<or> quiet i)"
  using assms(2)
proof (induction c)
  case Nil
  then show ?case by simp
next
  case (Cons i c)
  have one: "filter visible (compile_instr S i) = [src_access i] \<and> (\<forall>j \<in> set (compile_instr S i). visible j \<or> quiet j)"
  proof (cases i)
    case (Op a r x)
    then have "a \<in> A" using Cons.prems by (simp add: op_of_def)
    then obtain rw where "S a = Some rw" "l1_row a rw"
      using assms(1) by (auto simp: l1_rows_def)
    then show ?thesis using Op by (simp add: compile_instr_def l1_row_def)
  next
    case (SetReg r v)
    then show ?thesis by (simp add: compile_instr_def)
  qed
  have "filter visible (concat (map (compile_instr S) c)) = map src_access c
         \<and> (\<forall>i \<in> set (concat (map (compile_instr S) c)). visible i \<or> quiet i)"
    using Cons.IH Cons.prems by simp
  then show ?case using one by auto
qed

lemmas compiled_code = compiled_code_both[THEN conjunct1] compiled_code_both[THEN conjunct2]

section \<open>Positions in the compiled code\<close>

lemma filter_take_Suc:
  "n < length xs \<Longrightarrow> filter f (take (Suc n) xs) = filter f (take n xs) @ (if f (xs ! n) then [xs ! n] else [])"
  by (simp add: take_Suc_conv_app_nth)

lemma filter_take_nth:
  assumes "n < length xs" "f (xs ! n)"
  shows "length (filter f (take n xs)) < length (filter f xs)"
    and "filter f xs ! length (filter f (take n xs)) = xs ! n"
proof -
  have xs: "xs = take n xs @ xs ! n # drop (Suc n) xs"
    using assms(1) by (rule id_take_nth_drop)
  have "filter f xs = filter f (take n xs) @ xs ! n # filter f (drop (Suc n) xs)"
    using assms(2) by (subst xs) simp
  then show "length (filter f (take n xs)) < length (filter f xs)"
    and "filter f xs ! length (filter f (take n xs)) = xs ! n"
    by (simp_all add: nth_append)
qed

section \<open>The current value of a location, and the caches' invariant\<close>

text \<open>lv: the value the home work-group's L1 holds dirty, else the value
  its device's L2 holds dirty, else memory's ([RSP15] sec. 5's order of a
  location's copies: a dirty L1 line is newer than the L2's, a dirty L2
  line newer than memory).\<close>
definition pick :: "entry option \<Rightarrow> entry option \<Rightarrow> int \<Rightarrow> int" where
  "pick a b m = (if dirty a then val_of a else if dirty b then val_of b else m)"

definition lv :: "layout \<Rightarrow> (addr \<Rightarrow> wid) \<Rightarrow> state \<Rightarrow> addr \<Rightarrow> int" where
  "lv L h s x = pick (l1 s (h x) x) (l2 s (dev_of L (h x)) x) (mem s x)"

text \<open>The invariant: a valid clean line of the home L1 holds the current
  value; a clean line of the home device's L2 holds memory's; no other L1 or
  L2 holds the location dirty.\<close>
definition cache_inv :: "layout \<Rightarrow> (addr \<Rightarrow> wid) \<Rightarrow> state \<Rightarrow> bool" where
  "cache_inv L h s \<longleftrightarrow>
     (\<forall>x v. l1 s (h x) x = Some (v, Clean, Valid) \<longrightarrow> v = lv L h s x)
     \<and> (\<forall>x v f. l2 s (dev_of L (h x)) x = Some (v, Clean, f) \<longrightarrow> v = mem s x)
     \<and> (\<forall>x w. w \<noteq> h x \<longrightarrow> \<not> dirty (l1 s w x))
     \<and> (\<forall>x d. d \<noteq> dev_of L (h x) \<longrightarrow> \<not> dirty (l2 s d x))"

lemma val_of_Some [simp]: "val_of (Some (v, hy, f)) = v"
  by (simp add: val_of_def)

lemma dirty_iff: "dirty e \<longleftrightarrow> (\<exists>v f. e = Some (v, Dirty, f))"
  by (auto simp: dirty_def split: option.splits hygiene.splits)

lemma not_dirty_iff: "\<not> dirty e \<longleftrightarrow> e = None \<or> (\<exists>v f. e = Some (v, Clean, f))"
proof (cases e)
  case (Some a)
  then show ?thesis by (cases a) (auto simp: dirty_def split: hygiene.splits)
qed simp

lemma val_of_invalidate [simp]: "val_of (invalidate e) = val_of e"
  by (auto simp: val_of_def invalidate_def split: option.splits)

lemma invalidate_not_valid: "invalidate e \<noteq> Some (v, hy, Valid)"
  by (auto simp: invalidate_def split: option.splits)

lemma invalidate_clean: "invalidate e = Some (v, Clean, f) \<Longrightarrow> \<exists>f'. e = Some (v, Clean, f')"
  by (auto simp: invalidate_def split: option.splits)

lemma pick_clean [simp]: "\<not> dirty a \<Longrightarrow> pick a b m = (if dirty b then val_of b else m)"
  by (simp add: pick_def)

lemma pick_dirty [simp]: "pick (Some (v, Dirty, f)) b m = v"
  by (simp add: pick_def)

lemma same_data:
  assumes "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s"
  shows "lv L h s' = lv L h s" "cache_inv L h s' = cache_inv L h s"
proof -
  show lv: "lv L h s' = lv L h s"
    using assms by (simp add: lv_def[abs_def])
  show "cache_inv L h s' = cache_inv L h s"
    unfolding cache_inv_def lv using assms by simp
qed

subsection \<open>Environment steps keep the invariant and every current value\<close>

lemma fetch_l1_inv:
  assumes "fetch_l1 L w x s = Some s'" "cache_inv L h s"
  shows "cache_inv L h s' \<and> lv L h s' = lv L h s"
proof -
  define d where "d = dev_of L w"
  have c: "(l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid))
         \<and> readable (l2 s d x) \<and> s' = set_l1 w x (Some (val_of (l2 s d x), Clean, Valid)) s"
    using assms(1) by (auto simp: fetch_l1_def d_def split: if_splits)
  then obtain v hy where l2: "l2 s d x = Some (v, hy, Valid)"
    by (auto simp: readable_def split: option.splits prod.splits freshness.splits)
  have pre: "\<not> dirty (l1 s w x)"
    using c by (auto simp: not_dirty_iff)
  have s': "s' = set_l1 w x (Some (v, Clean, Valid)) s"
    using c l2 by simp
  have lv_eq: "lv L h s' = lv L h s"
  proof
    fix y
    show "lv L h s' y = lv L h s y"
      using pre by (cases "y = x \<and> h y = w") (auto simp: s' set_l1_def lv_def)
  qed
  have v: "h x = w \<Longrightarrow> v = lv L h s x"
    using l2 pre assms(2)
    by (cases hy) (auto simp: lv_def cache_inv_def d_def)
  show ?thesis
    using assms(2) v pre unfolding cache_inv_def lv_eq
    by (auto simp: s' set_l1_def)
qed

lemma fetch_l2_inv:
  assumes "fetch_l2 d x s = Some s'" "cache_inv L h s"
  shows "cache_inv L h s' \<and> lv L h s' = lv L h s"
proof -
  have pre: "\<not> dirty (l2 s d x)"
  proof
    assume "dirty (l2 s d x)"
    then obtain v f where "l2 s d x = Some (v, Dirty, f)"
      by (auto simp: dirty_iff)
    then show False
      using assms(1) by (cases f) (auto simp: fetch_l2_def)
  qed
  have s': "s' = set_l2 d x (Some (mem s x, Clean, Valid)) s"
    using assms(1) by (auto simp: fetch_l2_def split: if_splits)
  have lv_eq: "lv L h s' = lv L h s"
  proof
    fix y
    show "lv L h s' y = lv L h s y"
      using pre by (cases "y = x") (auto simp: s' set_l2_def lv_def pick_def)
  qed
  show ?thesis
    using assms(2) pre unfolding cache_inv_def lv_eq
    by (auto simp: s' set_l2_def)
qed

lemma write_back_l1_inv:
  assumes "dirty (l1 s w x)" "cache_inv L h s"
  shows "cache_inv L h (write_back_l1 L w x s) \<and> lv L h (write_back_l1 L w x s) = lv L h s"
proof -
  have w: "w = h x"
  proof (rule ccontr)
    assume "w \<noteq> h x"
    then have "\<not> dirty (l1 s w x)" using assms(2) unfolding cache_inv_def by blast
    then show False using assms(1) by simp
  qed
  obtain v f where l1: "l1 s w x = Some (v, Dirty, f)"
    using assms(1) by (auto simp: dirty_iff)
  define s' where "s' = write_back_l1 L w x s"
  have s': "l1 s' = (l1 s)(w := (l1 s w)(x := Some (v, Clean, f)))"
           "l2 s' = (l2 s)(dev_of L w := (l2 s (dev_of L w))(x := Some (v, Dirty, Valid)))"
           "mem s' = mem s"
    using l1 by (simp_all add: s'_def write_back_l1_def enq_l2_def set_l1_def set_l2_def)
  have lv_eq: "lv L h s' = lv L h s"
  proof
    fix y
    show "lv L h s' y = lv L h s y"
    proof (cases "y = x")
      case True
      then show ?thesis using l1 w by (simp add: lv_def s')
    next
      case False
      show ?thesis
      proof (cases "dev_of L (h y) = dev_of L w")
        case True
        then show ?thesis using False by (simp add: lv_def s')
      next
        case dF: False
        then have "h y \<noteq> w" by auto
        then show ?thesis using False dF by (simp add: lv_def s')
      qed
    qed
  qed
  have inv: "\<forall>y u. l1 s (h y) y = Some (u, Clean, Valid) \<longrightarrow> u = lv L h s y"
    "\<forall>y v f. l2 s (dev_of L (h y)) y = Some (v, Clean, f) \<longrightarrow> v = mem s y"
    "\<forall>y w. w \<noteq> h y \<longrightarrow> \<not> dirty (l1 s w y)"
    "\<forall>y d. d \<noteq> dev_of L (h y) \<longrightarrow> \<not> dirty (l2 s d y)"
    using assms(2) by (simp_all add: cache_inv_def)
  have c1: "u = lv L h s y" if "l1 s' (h y) y = Some (u, Clean, Valid)" for y u
  proof (cases "y = x")
    case True
    then show ?thesis using that l1 w by (simp add: s' lv_def)
  next
    case False
    then have "l1 s' (h y) y = l1 s (h y) y" by (simp add: s')
    then show ?thesis using that inv(1) by simp
  qed
  have c2: "u = mem s' y" if "l2 s' (dev_of L (h y)) y = Some (u, Clean, f)" for y u f
  proof -
    have "y \<noteq> x"
    proof
      assume "y = x"
      then have "l2 s' (dev_of L (h y)) y = Some (v, Dirty, Valid)"
        unfolding s'(2) using w by simp
      then show False using that by simp
    qed
    then have "l2 s' (dev_of L (h y)) y = l2 s (dev_of L (h y)) y"
      unfolding s'(2) by simp
    then have "l2 s (dev_of L (h y)) y = Some (u, Clean, f)"
      using that by simp
    then show ?thesis using inv(2) s'(3) by simp
  qed
  have c3: "\<not> dirty (l1 s' v y)" if "v \<noteq> h y" for v y
  proof -
    have "l1 s' v y = l1 s v y"
      using that w by (cases "y = x") (simp_all add: s')
    then show ?thesis using that inv(3) by simp
  qed
  have c4: "\<not> dirty (l2 s' e y)" if "e \<noteq> dev_of L (h y)" for e y
  proof -
    have "l2 s' e y = l2 s e y"
      using that w by (cases "y = x") (simp_all add: s')
    then show ?thesis using that inv(4) by simp
  qed
  have "cache_inv L h s'"
    unfolding cache_inv_def lv_eq using c1 c2 c3 c4 by blast
  then show ?thesis
    using lv_eq by (simp add: s'_def)
qed

lemma write_back_l2_inv:
  assumes "dirty (l2 s d x)" "cache_inv L h s"
  shows "cache_inv L h (write_back_l2 d x s) \<and> lv L h (write_back_l2 d x s) = lv L h s"
proof -
  have d: "d = dev_of L (h x)"
  proof (rule ccontr)
    assume "d \<noteq> dev_of L (h x)"
    then have "\<not> dirty (l2 s d x)" using assms(2) unfolding cache_inv_def by blast
    then show False using assms(1) by simp
  qed
  obtain v f where l2: "l2 s d x = Some (v, Dirty, f)"
    using assms(1) by (auto simp: dirty_iff)
  define s' where "s' = write_back_l2 d x s"
  have s': "l1 s' = l1 s"
           "l2 s' = (l2 s)(d := (l2 s d)(x := Some (v, Clean, f)))"
           "mem s' = (mem s)(x := v)"
    using l2 by (simp_all add: s'_def write_back_l2_def set_l2_def)
  have lv_eq: "lv L h s' = lv L h s"
  proof
    fix y
    show "lv L h s' y = lv L h s y"
      using l2 d by (cases "y = x") (auto simp: lv_def s' pick_def)
  qed
  have "cache_inv L h s'"
    using assms(2) l2 d unfolding cache_inv_def lv_eq
    by (auto simp: s')
  then show ?thesis
    using lv_eq by (simp add: s'_def)
qed

lemma evict_l1_inv:
  assumes "\<not> dirty (l1 s w x)" "cache_inv L h s"
  shows "cache_inv L h (set_l1 w x None s) \<and> lv L h (set_l1 w x None s) = lv L h s"
proof -
  have lv_eq: "lv L h (set_l1 w x None s) = lv L h s"
  proof
    fix y
    show "lv L h (set_l1 w x None s) y = lv L h s y"
      using assms(1) by (cases "y = x \<and> h y = w") (auto simp: set_l1_def lv_def)
  qed
  show ?thesis
    using assms(2) unfolding cache_inv_def lv_eq by (auto simp: set_l1_def)
qed

lemma evict_l2_inv:
  assumes "\<not> dirty (l2 s d x)" "cache_inv L h s"
  shows "cache_inv L h (set_l2 d x None s) \<and> lv L h (set_l2 d x None s) = lv L h s"
proof -
  have lv_eq: "lv L h (set_l2 d x None s) = lv L h s"
  proof
    fix y
    show "lv L h (set_l2 d x None s) y = lv L h s y"
      using assms(1) by (cases "y = x") (auto simp: set_l2_def lv_def pick_def)
  qed
  show ?thesis
    using assms(2) unfolding cache_inv_def lv_eq by (auto simp: set_l2_def)
qed

lemma fifo_inv:
  "cache_inv L h (s\<lparr>l1_fifo := q\<rparr>) = cache_inv L h s" "lv L h (s\<lparr>l1_fifo := q\<rparr>) = lv L h s"
  "cache_inv L h (s\<lparr>l2_fifo := q'\<rparr>) = cache_inv L h s" "lv L h (s\<lparr>l2_fifo := q'\<rparr>) = lv L h s"
  using same_data[of "s\<lparr>l1_fifo := q\<rparr>" s L h] same_data[of "s\<lparr>l2_fifo := q'\<rparr>" s L h] by simp_all

lemma dequeue_l1_inv:
  assumes "dequeue_l1 L w s = Some s'" "cache_inv L h s"
  shows "cache_inv L h s' \<and> lv L h s' = lv L h s"
proof (cases "l1_fifo s w")
  case Nil
  with assms show ?thesis by (simp add: dequeue_l1_def)
next
  case (Cons e rest)
  define s1 where "s1 = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>"
  have c1: "cache_inv L h s1" "lv L h s1 = lv L h s"
    using assms(2) by (simp_all add: s1_def fifo_inv)
  have "s' = s1 \<or> (\<exists>x. dirty (l1 s1 w x) \<and> s' = write_back_l1 L w x s1)"
    using assms(1) Cons
    by (cases e) (auto simp: dequeue_l1_def s1_def Let_def split: if_splits)
  then show ?thesis
  proof
    assume "s' = s1"
    then show ?thesis using c1 by simp
  next
    assume "\<exists>x. dirty (l1 s1 w x) \<and> s' = write_back_l1 L w x s1"
    then obtain x where "dirty (l1 s1 w x)" "s' = write_back_l1 L w x s1"
      by blast
    then show ?thesis using write_back_l1_inv[OF _ c1(1)] c1(2) by simp
  qed
qed

lemma dequeue_l2_inv:
  assumes "dequeue_l2 d s = Some s'" "cache_inv L h s"
  shows "cache_inv L h s' \<and> lv L h s' = lv L h s"
proof (cases "l2_fifo s d")
  case Nil
  with assms show ?thesis by (simp add: dequeue_l2_def)
next
  case (Cons e rest)
  define s1 where "s1 = s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr>"
  have c1: "cache_inv L h s1" "lv L h s1 = lv L h s"
    using assms(2) by (simp_all add: s1_def fifo_inv)
  have "s' = s1 \<or> (\<exists>x. dirty (l2 s1 d x) \<and> s' = write_back_l2 d x s1)"
    using assms(1) Cons
    by (cases e) (auto simp: dequeue_l2_def s1_def Let_def split: if_splits)
  then show ?thesis
  proof
    assume "s' = s1"
    then show ?thesis using c1 by simp
  next
    assume "\<exists>x. dirty (l2 s1 d x) \<and> s' = write_back_l2 d x s1"
    then obtain x where "dirty (l2 s1 d x)" "s' = write_back_l2 d x s1"
      by blast
    then show ?thesis using write_back_l2_inv[OF _ c1(1)] c1(2) by simp
  qed
qed

lemma env_step_cases:
  assumes "s' \<in> env_step L wb s"
  shows "(\<exists>w x. fetch_l1 L w x s = Some s') \<or> (\<exists>d x. fetch_l2 d x s = Some s')
      \<or> (\<exists>w. dequeue_l1 L w s = Some s') \<or> (\<exists>d. dequeue_l2 d s = Some s')
      \<or> (\<exists>w x. dirty (l1 s w x) \<and> s' = write_back_l1 L w x s) \<or> (\<exists>d x. dirty (l2 s d x) \<and> s' = write_back_l2 d x s)
      \<or> (\<exists>w x. \<not> dirty (l1 s w x) \<and> s' = set_l1 w x None s) \<or> (\<exists>d x. \<not> dirty (l2 s d x) \<and> s' = set_l2 d x None s)"
  using assms unfolding env_step_def write_back_any_def evict_def
  by (auto split: if_splits)

lemma env_step_regs_pc:
  assumes "s' \<in> env_step L wb s"
  shows "regs s' = regs s \<and> pc s' = pc s"
proof -
  have f1: "fetch_l1 L w x s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s" for w x
    by (auto simp: fetch_l1_def set_l1_def split: if_splits)
  have f2: "fetch_l2 d x s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s" for d x
    by (auto simp: fetch_l2_def set_l2_def split: if_splits)
  have w1: "regs (write_back_l1 L w x s1) = regs s1 \<and> pc (write_back_l1 L w x s1) = pc s1" for w x s1
    by (auto simp: write_back_l1_def enq_l2_def set_l1_def set_l2_def split: option.splits)
  have w2: "regs (write_back_l2 d x s1) = regs s1 \<and> pc (write_back_l2 d x s1) = pc s1" for d x s1
    by (auto simp: write_back_l2_def set_l2_def split: option.splits)
  have q1: "dequeue_l1 L w s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s" for w
    using w1 by (auto simp: dequeue_l1_def Let_def split: list.splits fifo_el.splits if_splits)
  have q2: "dequeue_l2 d s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s" for d
    using w2 by (auto simp: dequeue_l2_def Let_def split: list.splits fifo_el.splits if_splits)
  show ?thesis
    using env_step_cases[OF assms] f1 f2 q1 q2 w1 w2 by (auto simp: set_l1_def set_l2_def)
qed

lemma env_step_inv:
  assumes "s' \<in> env_step L wb s" "cache_inv L h s"
  shows "cache_inv L h s' \<and> lv L h s' = lv L h s \<and> regs s' = regs s \<and> pc s' = pc s"
proof -
  have "cache_inv L h s' \<and> lv L h s' = lv L h s"
    using env_step_cases[OF assms(1)]
  proof (elim disjE exE conjE)
    fix w x assume "fetch_l1 L w x s = Some s'"
    then show ?thesis using assms(2) by (rule fetch_l1_inv)
  next
    fix d x assume "fetch_l2 d x s = Some s'"
    then show ?thesis using assms(2) by (rule fetch_l2_inv)
  next
    fix w assume "dequeue_l1 L w s = Some s'"
    then show ?thesis using assms(2) by (rule dequeue_l1_inv)
  next
    fix d assume "dequeue_l2 d s = Some s'"
    then show ?thesis using assms(2) by (rule dequeue_l2_inv)
  next
    fix w x assume "dirty (l1 s w x)" "s' = write_back_l1 L w x s"
    then show ?thesis using assms(2) write_back_l1_inv by simp
  next
    fix d x assume "dirty (l2 s d x)" "s' = write_back_l2 d x s"
    then show ?thesis using assms(2) write_back_l2_inv by simp
  next
    fix w x assume "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
    then show ?thesis using assms(2) evict_l1_inv by simp
  next
    fix d x assume "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
    then show ?thesis using assms(2) evict_l2_inv by simp
  qed
  then show ?thesis using env_step_regs_pc[OF assms(1)] by simp
qed

subsection \<open>Instructions of the home work-group\<close>

text \<open>A quiet instruction changes neither the current values nor the
  invariant, nor any register.\<close>
lemma quiet_inv:
  assumes "exec L t i s = Some s'" "quiet i" "cache_inv L h s"
  shows "cache_inv L h s' \<and> lv L h s' = lv L h s \<and> regs s' = regs s"
proof (cases i)
  case (INVL1 sc)
  define s1 where "s1 = s\<lparr>l1 := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then invalidate \<circ> l1 s w else l1 s w)\<rparr>"
  have s': "s' = s1" using assms(1) INVL1 by (simp add: s1_def)
  have lv_eq: "lv L h s1 = lv L h s"
    by (rule ext) (simp add: lv_def s1_def pick_def)
  have l1: "l1 s1 w y = l1 s w y \<or> l1 s1 w y = invalidate (l1 s w y)" for w y
    by (simp add: s1_def)
  have "cache_inv L h s1"
    using assms(3) l1 unfolding cache_inv_def lv_eq
    by (simp add: s1_def) (metis invalidate_not_valid)
  then show ?thesis using lv_eq s' by (simp add: s1_def)
next
  case (INVL2 sc)
  define s1 where "s1 = s\<lparr>l2 := (\<lambda>d. if d \<in> devs_in L sc (dev_of L (wg_of L t)) then invalidate \<circ> l2 s d else l2 s d)\<rparr>"
  have s': "s' = s1" using assms(1) INVL2 by (simp add: s1_def)
  have lv_eq: "lv L h s1 = lv L h s"
    by (rule ext) (simp add: lv_def s1_def pick_def invalidate_def split: option.splits)
  have l2: "l2 s1 d y = l2 s d y \<or> l2 s1 d y = invalidate (l2 s d y)" for d y
    by (simp add: s1_def)
  have "cache_inv L h s1"
    using assms(3) l2 unfolding cache_inv_def lv_eq
    by (simp add: s1_def) (metis invalidate_clean)
  then show ?thesis using lv_eq s' by (simp add: s1_def)
qed (use assms in \<open>auto simp: cache_inv_def lv_def[abs_def] Let_def set_reg_def split: if_splits\<close>)

text \<open>An access of the home work-group: what it reads is the current value,
  and it leaves the invariant with the location's new current value.\<close>
lemma readable_lv:
  assumes "readable (l1 s (h x) x)" "cache_inv L h s"
  shows "val_of (l1 s (h x) x) = lv L h s x"
proof -
  obtain v hy where l1: "l1 s (h x) x = Some (v, hy, Valid)"
    using assms(1) by (auto simp: readable_def split: option.splits prod.splits freshness.splits)
  then show ?thesis
    using assms(2) by (cases hy) (auto simp: cache_inv_def lv_def)
qed

lemma write_l1_inv:
  assumes "cache_inv L h s" "w = h x"
  shows "cache_inv L h (set_l1 w x (Some (v, Dirty, Valid)) s)
         \<and> lv L h (set_l1 w x (Some (v, Dirty, Valid)) s) = (lv L h s)(x := v)"
proof -
  define s' where "s' = set_l1 w x (Some (v, Dirty, Valid)) s"
  have lv_eq: "lv L h s' = (lv L h s)(x := v)"
  proof
    fix y
    show "lv L h s' y = ((lv L h s)(x := v)) y"
      using assms(2) by (cases "y = x") (auto simp: s'_def set_l1_def lv_def)
  qed
  have "cache_inv L h s'"
    using assms unfolding cache_inv_def lv_eq
    by (auto simp: s'_def set_l1_def)
  then show ?thesis using lv_eq by (simp add: s'_def)
qed

section \<open>The simulation\<close>

text \<open>A machine state and an SC state correspond when the registers agree,
  each thread's SC position counts the visible instructions it has done,
  the SC memory holds every location's current value, and the invariant
  holds.\<close>
definition sim :: "layout \<Rightarrow> (addr \<Rightarrow> wid) \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> sc_state \<Rightarrow> bool" where
  "sim L h S P s \<sigma> \<longleftrightarrow>
     regs s = sc_regs \<sigma> \<and> sc_mem \<sigma> = lv L h s \<and> cache_inv L h s
     \<and> (\<forall>t \<in> src_threads P. sc_pc \<sigma> t = length (filter visible (take (pc s t) (instrs (compile S P) t))))"

lemma sim_initial: "sim L h S P (initial (src_init P)) (sc_initial P)"
  by (simp add: sim_def initial_def sc_initial_def lv_def[abs_def] pick_def cache_inv_def)

lemma sim_env:
  assumes "sim L h S P s \<sigma>" "s' \<in> env_step L wb s"
  shows "sim L h S P s' \<sigma>"
proof -
  have "cache_inv L h s"
    using assms(1) by (simp add: sim_def)
  note e = env_step_inv[OF assms(2) this]
  show ?thesis
    using assms(1) e by (simp add: sim_def)
qed

lemma sim_thread:
  assumes "sim L h S P s \<sigma>" "t \<in> src_threads P" "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "ops_of P \<subseteq> A" and home: "homed L h P"
  shows "\<exists>\<sigma>'. (\<sigma>, \<sigma>') \<in> (sc_step P)\<^sup>= \<and> sim L h S P s' \<sigma>'"
proof -
  define xs where "xs = instrs (compile S P) t"
  define n where "n = pc s t"
  define i where "i = xs ! n"
  have xs: "xs = concat (map (compile_instr S) (src_code P t))"
    by (simp add: xs_def compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A"
    using rows(2) assms(2) by (auto simp: ops_of_def)
  obtain z where n: "n < length xs" and z: "exec L t i s = Some z" "s' = set_pc t (next_pc t i s) z"
    using assms(3)
    by (auto simp: step_thread_def xs_def n_def i_def compile_def Let_def split: if_splits)
  have "pc z = pc s"
    using z(1) by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)
  then have s': "exec L t i s = Some (s'\<lparr>pc := pc s\<rparr>)" "pc s' = (pc s)(t := next_pc t i s)"
    using z by (simp_all add: set_pc_def)
  have vq: "visible i \<or> quiet i"
    using compiled_code(2)[OF rows(1) ops] n by (simp add: i_def xs[symmetric])
  then have nxt: "next_pc t i s = Suc n"
    by (cases i) (auto simp: next_pc_def n_def)
  have pcs: "\<forall>u \<in> src_threads P. u \<noteq> t \<longrightarrow> pc s' u = pc s u"
    using s'(2) by simp
  have "regs z u = regs s u" if "u \<noteq> t" for u
    using z(1) that
    by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)
  then have regs_other: "\<forall>u. u \<noteq> t \<longrightarrow> regs s' u = regs s u"
    using z(2) by (simp add: set_pc_def)
  show ?thesis
  proof (cases "visible i")
    case False
    then have q: "quiet i" using vq by simp
    have ci: "cache_inv L h s"
      using assms(1) by (simp add: sim_def)
    have qi: "cache_inv L h (s'\<lparr>pc := pc s\<rparr>) \<and> lv L h (s'\<lparr>pc := pc s\<rparr>) = lv L h s
        \<and> regs (s'\<lparr>pc := pc s\<rparr>) = regs s"
      by (rule quiet_inv[OF s'(1) q ci])
    have "cache_inv L h (s'\<lparr>pc := pc s\<rparr>) = cache_inv L h s'" "lv L h (s'\<lparr>pc := pc s\<rparr>) = lv L h s'"
      using same_data[of "s'\<lparr>pc := pc s\<rparr>" s' L h] by simp_all
    then have inv: "cache_inv L h s' \<and> lv L h s' = lv L h s \<and> regs s' = regs s"
      using qi by simp
    have "filter visible (take (Suc n) xs) = filter visible (take n xs)"
      using filter_take_Suc[OF n] False by (simp add: i_def)
    then have "sim L h S P s' \<sigma>"
      using assms(1) inv pcs s'(2) nxt by (auto simp: sim_def xs_def n_def)
    then show ?thesis by blast
  next
    case True
    define k where "k = length (filter visible (take n xs))"
    have k: "k < length (src_code P t)" and ik: "i = src_access (src_code P t ! k)"
      using filter_take_nth[OF n, of visible] True compiled_code(1)[OF rows(1) ops]
      by (simp_all add: k_def i_def xs[symmetric])
    have kpc: "sc_pc \<sigma> t = k"
      using assms(1,2) by (simp add: sim_def k_def xs_def n_def)
    have take': "length (filter visible (take (Suc n) xs)) = Suc k"
      using filter_take_Suc[OF n] True by (simp add: i_def k_def)
    define \<sigma>' where "\<sigma>' = (sc_exec t (src_code P t ! k) \<sigma>)\<lparr>sc_pc := (sc_pc \<sigma>)(t := Suc k)\<rparr>"
    have st: "(\<sigma>, \<sigma>') \<in> sc_step P"
      using assms(2) k kpc by (auto simp: sc_step_def \<sigma>'_def)
    have c_in: "src_code P t ! k \<in> set (src_code P t)"
      using k by simp
    have inv: "cache_inv L h s" "sc_mem \<sigma> = lv L h s" "regs s = sc_regs \<sigma>"
      using assms(1) by (simp_all add: sim_def)
    have data: "cache_inv L h s' \<and> sc_mem \<sigma>' = lv L h s' \<and> regs s' = sc_regs \<sigma>'"
    proof (cases "src_code P t ! k")
      case (Op a r x)
      have hx: "wg_of L t = h x"
        using home assms(2) c_in Op by (auto simp: homed_def)
      show ?thesis
      proof (cases a)
        case (Load sc rm)
        have i: "i = LD r x" using ik Op Load by (simp add: access_def)
        then have rd: "readable (l1 s (h x) x)" and
          s1: "s'\<lparr>pc := pc s\<rparr> = set_reg t r (val_of (l1 s (h x) x)) s"
          using s'(1) hx by (auto simp: Let_def split: if_splits)
        have e: "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s"
            "regs s' = regs (set_reg t r (val_of (l1 s (h x) x)) s)"
          using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
          by (simp_all add: set_reg_def)
        show ?thesis
          using same_data[OF e(1-3)] e(4) inv readable_lv[OF rd inv(1)] Op Load
          by (simp add: \<sigma>'_def sc_set_reg_def set_reg_def)
      next
        case (Store sc rm)
        have i: "i = ST (ER r) x" using ik Op Store by (simp add: access_def)
        define v where "v = regs s t r"
        have s1: "s'\<lparr>pc := pc s\<rparr> = enq_l1 (h x) (Addr x) (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
          using s'(1) hx i by (auto simp: Let_def v_def split: if_splits)
        have w: "cache_inv L h (set_l1 (h x) x (Some (v, Dirty, Valid)) s)
              \<and> lv L h (set_l1 (h x) x (Some (v, Dirty, Valid)) s) = (lv L h s)(x := v)"
          by (rule write_l1_inv[OF inv(1) refl])
        have e: "l1 s' = l1 (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
                "l2 s' = l2 (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
                "mem s' = mem (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
                "regs s' = regs s"
          using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
          by (simp_all add: enq_l1_def set_l1_def)
        show ?thesis
          using w same_data[OF e(1-3)] e(4) inv Op Store
          by (simp add: \<sigma>'_def v_def)
      next
        case (FetchInc sc rm)
        have i: "i = INCL1 r x" using ik Op FetchInc by (simp add: access_def)
        then have rd: "readable (l1 s (h x) x)"
          using s'(1) hx by (auto simp: Let_def split: if_splits)
        define v where "v = val_of (l1 s (h x) x)"
        define s2 where "s2 = set_reg t r v s"
        have s1: "s'\<lparr>pc := pc s\<rparr> = enq_l1 (h x) (Addr x) (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
          using s'(1) hx i rd by (auto simp: Let_def v_def s2_def)
        have inv2: "cache_inv L h s2" "lv L h s2 = lv L h s"
          using same_data[of s2 s] inv(1) by (simp_all add: s2_def set_reg_def)
        have w: "cache_inv L h (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)
              \<and> lv L h (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2) = (lv L h s2)(x := v + 1)"
          by (rule write_l1_inv[OF inv2(1) refl])
        have e: "l1 s' = l1 (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
                "l2 s' = l2 (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
                "mem s' = mem (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
                "regs s' = regs s2"
          using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
          by (simp_all add: enq_l1_def set_l1_def)
        have vlv: "v = lv L h s x"
          using readable_lv[OF rd inv(1)] by (simp add: v_def)
        show ?thesis
          using w same_data[OF e(1-3)] e(4) inv inv2 Op FetchInc vlv
          by (simp add: \<sigma>'_def s2_def set_reg_def sc_set_reg_def)
      qed
    next
      case (SetReg r v)
      have i: "i = MOV r (EC v)" using ik SetReg by simp
      then have s1: "s'\<lparr>pc := pc s\<rparr> = set_reg t r v s"
        using s'(1) by simp
      have e: "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s" "regs s' = regs (set_reg t r v s)"
        using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
        by (simp_all add: set_reg_def)
      show ?thesis
        using same_data[OF e(1-3)] e(4) inv SetReg
        by (simp add: \<sigma>'_def set_reg_def sc_set_reg_def)
    qed
    have pc_\<sigma>': "sc_pc \<sigma>' = (sc_pc \<sigma>)(t := Suc k)"
      by (simp add: \<sigma>'_def)
    have "sim L h S P s' \<sigma>'"
      using data assms(1) pcs s'(2) nxt take' pc_\<sigma>'
      by (auto simp: sim_def xs_def n_def)
    then show ?thesis using st by blast
  qed
qed

lemma sim_reachable:
  assumes "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and "l1_rows S A" "ops_of P \<subseteq> A" "homed L h P"
  shows "\<exists>\<sigma>. (sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>* \<and> sim L h S P s \<sigma>"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using assms(1) by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    then show ?case using sim_initial by blast
  next
    case (step s1 s2)
    then obtain \<sigma> where \<sigma>: "(sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>*" "sim L h S P s1 \<sigma>"
      by blast
    from step.hyps(2) consider (thr) t where "t \<in> src_threads P" "step_thread L (compile S P) t s1 = Some s2"
      | (env) "s2 \<in> env_step L wb s1"
    proof -
      have "threads (compile S P) = src_threads P"
        by (simp add: compile_def)
      then show ?thesis
        using step.hyps(2) that unfolding step_def by blast
    qed
    then show ?case
    proof cases
      case thr
      obtain \<sigma>' where \<sigma>': "(\<sigma>, \<sigma>') \<in> (sc_step P)\<^sup>=" "sim L h S P s2 \<sigma>'"
        using sim_thread[OF \<sigma>(2) thr(1) thr(2) assms(2) assms(3) assms(4)] by blast
      have "(\<sigma>, \<sigma>') \<in> (sc_step P)\<^sup>*"
        using r_into_rtrancl[OF \<sigma>'(1)] by (simp only: rtrancl_reflcl)
      then have "(sc_initial P, \<sigma>') \<in> (sc_step P)\<^sup>*"
        by (rule rtrancl_trans[OF \<sigma>(1)])
      then show ?thesis using \<sigma>'(2) by blast
    next
      case env
      have "sim L h S P s2 \<sigma>"
        by (rule sim_env[OF \<sigma>(2) env])
      then show ?thesis using \<sigma>(1) by blast
    qed
  qed
qed

section \<open>The theorem\<close>

text \<open>For every program whose locations are each accessed by one work-group
  (h x, which the layout has, on a device it has), compiled by rows whose
  one data instruction is an L1 access: every outcome of the machine,
  under either write-back policy, is an SC outcome of the source program.
  Race-freedom is not needed.\<close>
theorem homed_outcomes_sc:
  assumes "l1_rows S A" "ops_of P \<subseteq> A" "homed L h P"
    and "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> sc_outcomes P"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    "is_final L (compile S P) s" "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  obtain \<sigma> where \<sigma>: "(sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>*" "sim L h S P s \<sigma>"
    using sim_reachable[OF s(1) assms(1-3)] by blast
  have mem: "sc_mem \<sigma> = mem s"
  proof
    fix x
    have "\<not> dirty (l1 s (h x) x)" "\<not> dirty (l2 s (dev_of L (h x)) x)"
      using s(2) assms(4) by (auto simp: is_final_def)
    then show "sc_mem \<sigma> x = mem s x"
      using \<sigma>(2) by (simp add: sim_def lv_def)
  qed
  have fin: "\<forall>t \<in> src_threads P. sc_pc \<sigma> t \<ge> length (src_code P t)"
  proof
    fix t assume t: "t \<in> src_threads P"
    have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A"
      using assms(2) t by (auto simp: ops_of_def)
    have "pc s t \<ge> length (instrs (compile S P) t)"
      using s(2) t by (auto simp: is_final_def compile_def)
    then have "sc_pc \<sigma> t = length (filter visible (instrs (compile S P) t))"
      using \<sigma>(2) t by (simp add: sim_def)
    then show "sc_pc \<sigma> t \<ge> length (src_code P t)"
      using compiled_code(1)[OF assms(1) ops] by (simp add: compile_def)
  qed
  have "ob = (sc_regs \<sigma>, sc_mem \<sigma>)"
    using s(3) \<sigma>(2) mem by (simp add: sim_def)
  then show "ob \<in> sc_outcomes P"
    using \<sigma>(1) fin by (auto simp: sc_outcomes_def)
qed

text \<open>All threads in one work-group w: every location's home is w.\<close>
corollary one_work_group_outcomes_sc:
  assumes "l1_rows S A" "ops_of P \<subseteq> A" "\<forall>t \<in> src_threads P. wg_of L t = w"
    and "w \<in> wgs L" "dev_of L w \<in> devs L"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> sc_outcomes P"
  using homed_outcomes_sc[OF assms(1,2), of L "\<lambda>_. w"] assms(3-5) by (simp add: homed_def)

text \<open>Against a source model that allows every SC outcome of a race-free
  program (hrf's models do: Hrf_Lattice for HRF-relaxed, by definition for
  SC, HRF-direct and HRF-indirect), the outcome part of soundness.\<close>
locale sc_source_model = source_model +
  assumes allows_sc: "\<not> racy L P \<Longrightarrow> sc_outcomes P \<subseteq> allowed L P"
begin

theorem homed_outcomes_allowed:
  assumes "l1_rows S A" "ops_of P \<subseteq> A" "homed L h P"
    and "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L" "\<not> racy L P"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> allowed L P"
  using homed_outcomes_sc[OF assms(1-4)] allows_sc[OF assms(5)] by blast

end

section \<open>Deadlock freedom of lock-free straight-line programs\<close>

text \<open>A program whose instructions take no lock, do not branch and perform
  no RMW at the L2 cannot deadlock ([RSP15] sec. 5 asks it of a compiled
  program): from every reachable state the environment drains every fifo
  (a dirty line's address is always queued, `queued`), then fetches what a
  load needs, so each thread in turn runs to its end, and a last drain
  leaves a final state. For any layout and either write-back policy.\<close>

text \<open>Instructions that neither take a lock nor branch, and no INCL2.\<close>
fun unlocked :: "instr \<Rightarrow> bool" where
  "unlocked (LD _ _) = True" | "unlocked (ST _ _) = True" | "unlocked (INCL1 _ _) = True"
| "unlocked (FLUL1 _) = True" | "unlocked (FLUL2 _) = True" | "unlocked (INVL1 _) = True"
| "unlocked (INVL2 _) = True" | "unlocked (MOV _ _) = True" | "unlocked _ = False"

definition progress_ok :: "layout \<Rightarrow> program \<Rightarrow> bool" where
  "progress_ok L P \<longleftrightarrow> finite (threads P) \<and> finite (wgs L) \<and> finite (devs L)
     \<and> (\<forall>t \<in> threads P. wg_of L t \<in> wgs L \<and> (\<forall>i \<in> set (instrs P t). unlocked i))
     \<and> (\<forall>w \<in> wgs L. dev_of L w \<in> devs L)"

text \<open>Every dirty line has its address in its cache's fifo; no lock is held.\<close>
definition queued :: "state \<Rightarrow> bool" where
  "queued s \<longleftrightarrow> (\<forall>w x. dirty (l1 s w x) \<longrightarrow> Addr x \<in> set (l1_fifo s w))
     \<and> (\<forall>d x. dirty (l2 s d x) \<longrightarrow> Addr x \<in> set (l2_fifo s d))
     \<and> lockfile s = (\<lambda>_ _. None) \<and> rmw_lock s = (\<lambda>_. None)"

lemma queued_initial: "queued (initial m)"
  by (simp add: queued_def initial_def)

lemma write_back_l1_queued:
  "queued s \<Longrightarrow> queued (write_back_l1 L w x s)"
  by (auto simp: queued_def write_back_l1_def enq_l2_def set_l1_def set_l2_def split: option.splits)

lemma write_back_l2_queued:
  "queued s \<Longrightarrow> queued (write_back_l2 d x s)"
  by (auto simp: queued_def write_back_l2_def set_l2_def split: option.splits)

lemma dequeue_l1_queued:
  assumes "dequeue_l1 L w s = Some s'" "queued s"
  shows "queued s'"
proof (cases "l1_fifo s w")
  case Nil
  with assms show ?thesis by (simp add: dequeue_l1_def)
next
  case (Cons e rest)
  define s1 where "s1 = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>"
  show ?thesis
  proof (cases e)
    case (Addr x)
    have q1: "Addr y \<in> set (l1_fifo s1 w)" if "dirty (l1 s w y)" "y \<noteq> x" for y
    proof -
      have "Addr y \<in> set (l1_fifo s w)"
        using assms(2) that(1) unfolding queued_def by blast
      then show ?thesis using Cons Addr that(2) by (simp add: s1_def)
    qed
    show ?thesis
    proof (cases "dirty (l1 s w x)")
      case True
      then have s': "s' = write_back_l1 L w x s1"
        using assms(1) Cons Addr by (auto simp: dequeue_l1_def s1_def Let_def split: if_splits)
      show ?thesis
        unfolding s' using assms(2) q1 True
        by (auto simp: queued_def write_back_l1_def enq_l2_def set_l1_def set_l2_def s1_def split: option.splits)
    next
      case False
      then have s': "s' = s1"
        using assms(1) Cons Addr by (auto simp: dequeue_l1_def s1_def Let_def)
      show ?thesis
        unfolding s' using assms(2) q1 False by (auto simp: queued_def s1_def)
    qed
  next
    case (Flush u)
    then have s': "s' = s1"
      using assms(1) Cons by (auto simp: dequeue_l1_def s1_def Let_def)
    have q: "Addr y \<in> set (l1_fifo s1 w)" if "dirty (l1 s w y)" for y
    proof -
      have "Addr y \<in> set (l1_fifo s w)"
        using assms(2) that unfolding queued_def by blast
      then show ?thesis using Cons Flush by (simp add: s1_def)
    qed
    show ?thesis
      unfolding s' using assms(2) q by (auto simp: queued_def s1_def)
  qed
qed

lemma dequeue_l2_queued:
  assumes "dequeue_l2 d s = Some s'" "queued s"
  shows "queued s'"
proof (cases "l2_fifo s d")
  case Nil
  with assms show ?thesis by (simp add: dequeue_l2_def)
next
  case (Cons e rest)
  define s1 where "s1 = s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr>"
  show ?thesis
  proof (cases e)
    case (Addr x)
    have q1: "Addr y \<in> set (l2_fifo s1 d)" if "dirty (l2 s d y)" "y \<noteq> x" for y
    proof -
      have "Addr y \<in> set (l2_fifo s d)"
        using assms(2) that(1) unfolding queued_def by blast
      then show ?thesis using Cons Addr that(2) by (simp add: s1_def)
    qed
    show ?thesis
    proof (cases "dirty (l2 s d x)")
      case True
      then have s': "s' = write_back_l2 d x s1"
        using assms(1) Cons Addr by (auto simp: dequeue_l2_def s1_def Let_def split: if_splits)
      show ?thesis
        unfolding s' using assms(2) q1 True
        by (auto simp: queued_def write_back_l2_def set_l2_def s1_def split: option.splits)
    next
      case False
      then have s': "s' = s1"
        using assms(1) Cons Addr by (auto simp: dequeue_l2_def s1_def Let_def)
      show ?thesis
        unfolding s' using assms(2) q1 False by (auto simp: queued_def s1_def)
    qed
  next
    case (Flush u)
    then have s': "s' = s1"
      using assms(1) Cons by (auto simp: dequeue_l2_def s1_def Let_def)
    have q: "Addr y \<in> set (l2_fifo s1 d)" if "dirty (l2 s d y)" for y
    proof -
      have "Addr y \<in> set (l2_fifo s d)"
        using assms(2) that unfolding queued_def by blast
      then show ?thesis using Cons Flush by (simp add: s1_def)
    qed
    show ?thesis
      unfolding s' using assms(2) q by (auto simp: queued_def s1_def)
  qed
qed


lemma env_step_queued:
  assumes "s' \<in> env_step L wb s" "queued s"
  shows "queued s'"
  using env_step_cases[OF assms(1)]
proof (elim disjE exE conjE)
  fix w x assume "fetch_l1 L w x s = Some s'"
  then show ?thesis using assms(2)
    by (auto simp: queued_def fetch_l1_def set_l1_def split: if_splits)
next
  fix d x assume "fetch_l2 d x s = Some s'"
  then show ?thesis using assms(2)
    by (auto simp: queued_def fetch_l2_def set_l2_def split: if_splits)
next
  fix w assume "dequeue_l1 L w s = Some s'"
  then show ?thesis using assms(2) by (rule dequeue_l1_queued)
next
  fix d assume "dequeue_l2 d s = Some s'"
  then show ?thesis using assms(2) by (rule dequeue_l2_queued)
next
  fix w x assume "s' = write_back_l1 L w x s"
  then show ?thesis using assms(2) write_back_l1_queued by simp
next
  fix d x assume "s' = write_back_l2 d x s"
  then show ?thesis using assms(2) write_back_l2_queued by simp
next
  fix w x assume "s' = set_l1 w x None s"
  then show ?thesis using assms(2) by (auto simp: queued_def set_l1_def)
next
  fix d x assume "s' = set_l2 d x None s"
  then show ?thesis using assms(2) by (auto simp: queued_def set_l2_def)
qed

lemma exec_queued:
  assumes "exec L t i s = Some s'" "unlocked i" "queued s"
  shows "queued s'"
  using assms
  by (cases i) (auto simp: queued_def Let_def set_reg_def set_l1_def enq_l1_def split: if_splits)

lemma step_queued:
  assumes "(s, s') \<in> step L wb P" "queued s" "\<forall>t \<in> threads P. \<forall>i \<in> set (instrs P t). unlocked i"
  shows "queued s'"
proof -
  { fix t assume t: "t \<in> threads P" and st: "step_thread L P t s = Some s'"
    then have pc: "pc s t < length (instrs P t)"
      by (auto simp: step_thread_def split: if_splits)
    then have u: "unlocked (instrs P t ! pc s t)"
      using assms(3) t nth_mem by blast
    obtain z where "exec L t (instrs P t ! pc s t) s = Some z" "s' = set_pc t (next_pc t (instrs P t ! pc s t) s) z"
      using st by (auto simp: step_thread_def Let_def split: if_splits)
    then have ?thesis
      using exec_queued[OF _ u assms(2)] by (auto simp: queued_def set_pc_def) }
  then show ?thesis
    using assms env_step_queued by (auto simp: step_def)
qed

lemma reachable_queued:
  assumes "s \<in> reachable L wb P (initial m)" "\<forall>t \<in> threads P. \<forall>i \<in> set (instrs P t). unlocked i"
  shows "queued s"
proof -
  have "(initial m, s) \<in> (step L wb P)\<^sup>*"
    using assms(1) by (simp add: reachable_def)
  then show ?thesis
  proof (induction rule: rtrancl_induct)
    case base
    then show ?case by (rule queued_initial)
  next
    case (step s1 s2)
    then show ?case using step_queued assms(2) by blast
  qed
qed

subsection \<open>Draining the fifos\<close>

lemma env_step_step: "s' \<in> env_step L wb s \<Longrightarrow> (s, s') \<in> step L wb P"
  by (simp add: step_def)

lemma dequeue_l1_some:
  assumes "queued s" "l1_fifo s w = e # rest"
  shows "\<exists>s1. dequeue_l1 L w s = Some s1 \<and> l1_fifo s1 = (l1_fifo s)(w := rest) \<and> pc s1 = pc s"
proof -
  have nl: "\<not> locked_out L s w x" for x
    using assms(1) by (simp add: queued_def locked_out_def)
  show ?thesis
    using assms(2) nl
    by (cases e) (auto simp: dequeue_l1_def Let_def write_back_l1_def enq_l2_def set_l1_def set_l2_def
                       split: option.splits)
qed

lemma dequeue_l2_some:
  assumes "l2_fifo s d = e # rest"
  shows "\<exists>s1. dequeue_l2 d s = Some s1 \<and> l2_fifo s1 = (l2_fifo s)(d := rest) \<and> l1_fifo s1 = l1_fifo s \<and> pc s1 = pc s"
  using assms
  by (cases e) (auto simp: dequeue_l2_def Let_def write_back_l2_def set_l2_def split: option.splits)

lemma drain_l1_one:
  assumes "queued s" "w \<in> wgs L"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> l1_fifo s' w = []
           \<and> (\<forall>v. v \<noteq> w \<longrightarrow> l1_fifo s' v = l1_fifo s v) \<and> pc s' = pc s"
  using assms(1)
proof (induction "length (l1_fifo s w)" arbitrary: s)
  case 0
  then show ?case by auto
next
  case (Suc n)
  then obtain e rest where q: "l1_fifo s w = e # rest"
    by (cases "l1_fifo s w") auto
  obtain s1 where s1: "dequeue_l1 L w s = Some s1" "l1_fifo s1 = (l1_fifo s)(w := rest)" "pc s1 = pc s"
    using dequeue_l1_some[OF Suc.prems q] by blast
  have st: "(s, s1) \<in> step L wb P"
    using s1(1) assms(2) by (intro env_step_step) (auto simp: env_step_def)
  have "queued s1" using dequeue_l1_queued[OF s1(1) Suc.prems] .
  moreover have "n = length (l1_fifo s1 w)" using Suc.hyps(2) q s1(2) by simp
  ultimately obtain s' where "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "l1_fifo s' w = []"
      "\<forall>v. v \<noteq> w \<longrightarrow> l1_fifo s' v = l1_fifo s1 v" "pc s' = pc s1"
    using Suc.hyps(1) by blast
  then show ?case using st s1(2,3) by (auto intro: converse_rtrancl_into_rtrancl)
qed

lemma drain_l2_one:
  assumes "queued s" "d \<in> devs L"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> l2_fifo s' d = []
           \<and> (\<forall>e. e \<noteq> d \<longrightarrow> l2_fifo s' e = l2_fifo s e) \<and> l1_fifo s' = l1_fifo s \<and> pc s' = pc s"
  using assms(1)
proof (induction "length (l2_fifo s d)" arbitrary: s)
  case 0
  then show ?case by auto
next
  case (Suc n)
  then obtain e rest where q: "l2_fifo s d = e # rest"
    by (cases "l2_fifo s d") auto
  obtain s1 where s1: "dequeue_l2 d s = Some s1" "l2_fifo s1 = (l2_fifo s)(d := rest)" "l1_fifo s1 = l1_fifo s" "pc s1 = pc s"
    using dequeue_l2_some[OF q] by blast
  have st: "(s, s1) \<in> step L wb P"
    using s1(1) assms(2) by (intro env_step_step) (auto simp: env_step_def)
  have "queued s1" using dequeue_l2_queued[OF s1(1) Suc.prems] .
  moreover have "n = length (l2_fifo s1 d)" using Suc.hyps(2) q s1(2) by simp
  ultimately obtain s' where "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "l2_fifo s' d = []"
      "\<forall>e. e \<noteq> d \<longrightarrow> l2_fifo s' e = l2_fifo s1 e" "l1_fifo s' = l1_fifo s1" "pc s' = pc s1"
    using Suc.hyps(1) by blast
  then show ?case using st s1(2-4) by (auto intro: converse_rtrancl_into_rtrancl)
qed

lemma drain_l1_set:
  assumes "finite W" "W \<subseteq> wgs L" "queued s"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> (\<forall>w \<in> W. l1_fifo s' w = []) \<and> pc s' = pc s"
  using assms
proof (induction W arbitrary: s rule: finite_induct)
  case empty
  then show ?case by auto
next
  case (insert w W)
  then obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "\<forall>v \<in> W. l1_fifo s1 v = []" "pc s1 = pc s"
    by blast
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "l1_fifo s' w = []"
      "\<forall>v. v \<noteq> w \<longrightarrow> l1_fifo s' v = l1_fifo s1 v" "pc s' = pc s1"
    using drain_l1_one[OF s1(2)] insert.prems(1) by blast
  have "\<forall>v \<in> insert w W. l1_fifo s' v = []"
    using s'(3,4) s1(3) insert.hyps(2) by auto
  moreover have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s1(1) s'(1) by (rule rtrancl_trans)
  ultimately show ?case using s'(2,5) s1(4) by auto
qed

lemma drain_l2_set:
  assumes "finite D" "D \<subseteq> devs L" "queued s"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> (\<forall>d \<in> D. l2_fifo s' d = []) \<and> l1_fifo s' = l1_fifo s \<and> pc s' = pc s"
  using assms
proof (induction D arbitrary: s rule: finite_induct)
  case empty
  then show ?case by auto
next
  case (insert d D)
  then obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "\<forall>e \<in> D. l2_fifo s1 e = []" "l1_fifo s1 = l1_fifo s" "pc s1 = pc s"
    by blast
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "l2_fifo s' d = []"
      "\<forall>e. e \<noteq> d \<longrightarrow> l2_fifo s' e = l2_fifo s1 e" "l1_fifo s' = l1_fifo s1" "pc s' = pc s1"
    using drain_l2_one[OF s1(2)] insert.prems(1) by blast
  have "\<forall>e \<in> insert d D. l2_fifo s' e = []"
    using s'(3,4) s1(3) insert.hyps(2) by auto
  moreover have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s1(1) s'(1) by (rule rtrancl_trans)
  ultimately show ?case using s'(2,5,6) s1(4,5) by auto
qed

definition drained :: "layout \<Rightarrow> state \<Rightarrow> bool" where
  "drained L s \<longleftrightarrow> (\<forall>w \<in> wgs L. l1_fifo s w = []) \<and> (\<forall>d \<in> devs L. l2_fifo s d = [])"

lemma drain:
  assumes "progress_ok L P" "queued s"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> drained L s' \<and> pc s' = pc s"
proof -
  have fin: "finite (wgs L)" "finite (devs L)"
    using assms(1) by (simp_all add: progress_ok_def)
  obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "\<forall>w \<in> wgs L. l1_fifo s1 w = []" "pc s1 = pc s"
    using drain_l1_set[OF fin(1) subset_refl assms(2)] by blast
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "\<forall>d \<in> devs L. l2_fifo s' d = []"
      "l1_fifo s' = l1_fifo s1" "pc s' = pc s1"
    using drain_l2_set[OF fin(2) subset_refl s1(2)] by blast
  show ?thesis
    using s1 s' by (auto simp: drained_def intro: rtrancl_trans)
qed

lemma drained_clean:
  assumes "queued s" "drained L s"
  shows "\<forall>w \<in> wgs L. \<forall>x. \<not> dirty (l1 s w x)" "\<forall>d \<in> devs L. \<forall>x. \<not> dirty (l2 s d x)"
  using assms by (fastforce simp: queued_def drained_def)+


subsection \<open>Each thread runs to its end\<close>

lemma fetch_to_readable:
  assumes "queued s" "\<not> dirty (l1 s w x)" "\<not> dirty (l2 s (dev_of L w) x)" "w \<in> wgs L" "dev_of L w \<in> devs L"
  shows "\<exists>s2. (s, s2) \<in> (step L wb P)\<^sup>* \<and> readable (l1 s2 w x) \<and> pc s2 = pc s \<and> queued s2
           \<and> l1_fifo s2 = l1_fifo s \<and> l2_fifo s2 = l2_fifo s"
proof (cases "readable (l1 s w x)")
  case True
  then show ?thesis using assms(1) by (intro exI[of _ s]) simp
next
  case False
  define d where "d = dev_of L w"
  have nl: "\<not> locked_out L s1 w x" if "lockfile s1 = lockfile s" for s1
    using assms(1) that by (simp add: queued_def locked_out_def)
  have l1: "l1 s w x = None \<or> (\<exists>v. l1 s w x = Some (v, Clean, Invalid))"
  proof (cases "l1 s w x")
    case (Some e)
    obtain v hy f where e: "e = (v, hy, f)" by (cases e) auto
    have "hy = Clean" using assms(2) Some e by (cases hy) auto
    moreover have "f = Invalid" using False Some e by (cases f) (auto simp: readable_def)
    ultimately show ?thesis using Some e by simp
  qed simp
  have fetch1: "\<exists>s2. (s1, s2) \<in> (step L wb P)\<^sup>* \<and> readable (l1 s2 w x) \<and> pc s2 = pc s1 \<and> queued s2
           \<and> l1_fifo s2 = l1_fifo s1 \<and> l2_fifo s2 = l2_fifo s1"
    if "readable (l2 s1 d x)" "l1 s1 w x = l1 s w x" "lockfile s1 = lockfile s" "queued s1" for s1
  proof -
    define s2 where "s2 = set_l1 w x (Some (val_of (l2 s1 d x), Clean, Valid)) s1"
    have cond: "l1 s1 w x = None \<or> l1 s1 w x = Some (val_of (l1 s1 w x), Clean, Invalid)"
      using l1 that(2) by auto
    have "fetch_l1 L w x s1 = Some s2"
      unfolding fetch_l1_def using cond that(1) nl[OF that(3)] by (simp add: s2_def d_def)
    then have "(s1, s2) \<in> step L wb P"
      using assms(4) by (intro env_step_step) (auto simp: env_step_def)
    moreover have "queued s2"
      using that(4) by (auto simp: queued_def s2_def set_l1_def)
    moreover have "readable (l1 s2 w x)" "pc s2 = pc s1" "l1_fifo s2 = l1_fifo s1" "l2_fifo s2 = l2_fifo s1"
      by (simp_all add: s2_def set_l1_def readable_def)
    ultimately show ?thesis
      by (intro exI[of _ s2]) simp
  qed
  show ?thesis
  proof (cases "readable (l2 s d x)")
    case True
    show ?thesis by (rule fetch1[OF True refl refl assms(1)])
  next
    case l2F: False
    define s1 where "s1 = set_l2 d x (Some (mem s x, Clean, Valid)) s"
    have "fetch_l2 d x s = Some s1"
      using assms(3) by (auto simp: fetch_l2_def s1_def d_def dirty_iff)
    then have st: "(s, s1) \<in> step L wb P"
      using assms(5) by (intro env_step_step) (auto simp: env_step_def d_def)
    have q1: "queued s1"
      using assms(1) by (auto simp: queued_def s1_def set_l2_def)
    have r1: "readable (l2 s1 d x)" "l1 s1 w x = l1 s w x" "lockfile s1 = lockfile s"
      by (simp_all add: s1_def set_l2_def readable_def)
    obtain s2 where h: "(s1, s2) \<in> (step L wb P)\<^sup>*" "readable (l1 s2 w x)" "pc s2 = pc s1" "queued s2"
        "l1_fifo s2 = l1_fifo s1" "l2_fifo s2 = l2_fifo s1"
      using fetch1[OF r1 q1] by blast
    have "(s, s2) \<in> (step L wb P)\<^sup>*"
      using st h(1) by (rule converse_rtrancl_into_rtrancl)
    moreover have "pc s1 = pc s" "l1_fifo s1 = l1_fifo s" "l2_fifo s1 = l2_fifo s"
      by (simp_all add: s1_def set_l2_def)
    ultimately show ?thesis
      using h by (intro exI[of _ s2]) simp
  qed
qed

lemma step_one:
  assumes ok: "progress_ok L P" and q: "queued s" and dr: "drained L s"
    and t: "t \<in> threads P" and pc: "pc s t < length (instrs P t)"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> pc s' = (pc s)(t := Suc (pc s t))"
proof -
  define i where "i = instrs P t ! pc s t"
  define w where "w = wg_of L t"
  have w: "w \<in> wgs L" and d: "dev_of L w \<in> devs L" and u: "unlocked i"
    using ok t pc nth_mem[OF pc] by (auto simp: progress_ok_def w_def i_def)
  have clean: "\<not> dirty (l1 s w x)" "\<not> dirty (l2 s (dev_of L w) x)" for x
    using drained_clean[OF q dr] w d by auto
  have go: "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> pc s' = (pc s)(t := Suc (pc s t))"
    if s2: "(s, s2) \<in> (step L wb P)\<^sup>*" "pc s2 = pc s" "queued s2" "l1_fifo s2 = l1_fifo s" "l2_fifo s2 = l2_fifo s"
      and ex: "exec L t i s2 \<noteq> None" for s2
  proof -
    obtain z where z: "exec L t i s2 = Some z" using ex by auto
    have nf: "\<not> unflushed L s2 t"
      using dr s2(4,5) by (auto simp: unflushed_def drained_def)
    have np: "next_pc t i s2 = Suc (pc s t)"
      using u s2(2) by (cases i) (auto simp: next_pc_def)
    define s' where "s' = set_pc t (Suc (pc s t)) z"
    have "step_thread L P t s2 = Some s'"
      using z t pc s2(2) nf np by (simp add: step_thread_def i_def s'_def)
    then have "(s2, s') \<in> step L wb P"
      using t by (auto simp: step_def)
    moreover have "queued s'"
      using exec_queued[OF z u s2(3)] by (simp add: s'_def set_pc_def queued_def)
    moreover have "pc z = pc s2"
      using z by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)
    ultimately show ?thesis
      using s2(1,2) by (auto simp: s'_def set_pc_def intro: rtrancl_into_rtrancl)
  qed
  have other: "exec L t i s \<noteq> None"
    if "\<forall>r x. i \<noteq> LD r x" "\<forall>r x. i \<noteq> INCL1 r x" "\<forall>v x. i \<noteq> ST v x"
    using u that by (cases i) auto
  show ?thesis
  proof (cases "\<exists>r x. i = LD r x \<or> i = INCL1 r x")
    case True
    then obtain r x where rx: "i = LD r x \<or> i = INCL1 r x" by blast
    obtain s2 where h: "(s, s2) \<in> (step L wb P)\<^sup>*" "readable (l1 s2 w x)" "pc s2 = pc s" "queued s2"
        "l1_fifo s2 = l1_fifo s" "l2_fifo s2 = l2_fifo s"
      using fetch_to_readable[OF q clean w d] by blast
    have "exec L t i s2 \<noteq> None"
      using h(2) rx by (auto simp: w_def Let_def)
    then show ?thesis by (rule go[OF h(1) h(3) h(4) h(5) h(6)])
  next
    case nrx: False
    show ?thesis
    proof (cases "\<exists>v x. i = ST v x")
      case True
      then obtain v x where st: "i = ST v x" by blast
      have "l1 s w x \<noteq> Some (val_of (l1 s w x), Dirty, Invalid)"
      proof
        assume e: "l1 s w x = Some (val_of (l1 s w x), Dirty, Invalid)"
        have "dirty (Some (val_of (l1 s w x), Dirty, Invalid))" by simp
        then show False using clean(1)[of x] e by metis
      qed
      then have "exec L t i s \<noteq> None"
        using st by (simp add: w_def Let_def)
      then show ?thesis by (rule go[OF rtrancl_refl refl q refl refl])
    next
      case False
      then have "exec L t i s \<noteq> None"
        using nrx by (intro other) auto
      then show ?thesis by (rule go[OF rtrancl_refl refl q refl refl])
    qed
  qed
qed

lemma finish_thread:
  assumes "progress_ok L P" "queued s" "t \<in> threads P"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> length (instrs P t) \<le> pc s' t
           \<and> (\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u)"
  using assms(2)
proof (induction "length (instrs P t) - pc s t" arbitrary: s)
  case 0
  then show ?case by auto
next
  case (Suc n)
  obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "drained L s1" "pc s1 = pc s"
    using drain[OF assms(1) Suc.prems] by blast
  have pc: "pc s1 t < length (instrs P t)" using Suc.hyps(2) s1(4) by simp
  obtain s2 where s2: "(s1, s2) \<in> (step L wb P)\<^sup>*" "queued s2" "pc s2 = (pc s1)(t := Suc (pc s1 t))"
    using step_one[OF assms(1) s1(2,3) assms(3) pc] by blast
  have "n = length (instrs P t) - pc s2 t" using Suc.hyps(2) s2(3) s1(4) by simp
  then obtain s' where s': "(s2, s') \<in> (step L wb P)\<^sup>*" "queued s'" "length (instrs P t) \<le> pc s' t"
      "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s2 u"
    using Suc.hyps(1) s2(2) by blast
  have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s1(1) s2(1) s'(1) by (meson rtrancl_trans)
  then show ?case using s' s2(3) s1(4) by auto
qed

lemma finish_threads:
  assumes "finite T" "T \<subseteq> threads P" "progress_ok L P" "queued s"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> (\<forall>t \<in> T. length (instrs P t) \<le> pc s' t)"
  using assms(1,2,4)
proof (induction T arbitrary: s rule: finite_induct)
  case empty
  then show ?case by auto
next
  case (insert t T)
  then obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "\<forall>u \<in> T. length (instrs P u) \<le> pc s1 u"
    by blast
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "length (instrs P t) \<le> pc s' t"
      "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s1 u"
    using finish_thread[OF assms(3) s1(2)] insert.prems(1) by blast
  have "\<forall>u \<in> insert t T. length (instrs P u) \<le> pc s' u"
    using s'(3,4) s1(3) insert.hyps(2) by auto
  moreover have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s1(1) s'(1) by (rule rtrancl_trans)
  ultimately show ?case using s'(2) by auto
qed

theorem progress:
  assumes "progress_ok L P" "queued s"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> is_final L P s'"
proof -
  obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "\<forall>t \<in> threads P. length (instrs P t) \<le> pc s1 t"
    using finish_threads[where wb = wb, OF _ subset_refl assms] assms(1) by (auto simp: progress_ok_def)
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "drained L s'" "pc s' = pc s1"
    using drain[OF assms(1) s1(2)] by blast
  have "is_final L P s'"
    using s1(3) s'(3,4) drained_clean[OF s'(2,3)] by (auto simp: is_final_def drained_def)
  moreover have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s1(1) s'(1) by (rule rtrancl_trans)
  ultimately show ?thesis by blast
qed

theorem unlocked_deadlock_free:
  assumes "progress_ok L P"
  shows "deadlock_free L wb P (initial m)"
  unfolding deadlock_free_def
proof
  fix s assume "s \<in> reachable L wb P (initial m)"
  then have "queued s"
    using reachable_queued assms by (auto simp: progress_ok_def)
  then obtain s' where "(s, s') \<in> (step L wb P)\<^sup>*" "is_final L P s'"
    using progress[OF assms] by blast
  then show "\<exists>s' \<in> reachable L wb P s. is_final L P s'"
    by (auto simp: reachable_def)
qed

section \<open>Soundness for the class\<close>

text \<open>The rows of A take no lock either (`unlocked_rows`): a compiled
  program of the class is then lock-free and straight-line.\<close>
definition unlocked_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "unlocked_rows S A \<longleftrightarrow> (\<forall>a \<in> A. \<exists>rw. S a = Some rw \<and> (\<forall>r x. \<forall>i \<in> set (rw r x). unlocked i))"

lemma compile_progress_ok:
  assumes "unlocked_rows S A" "ops_of P \<subseteq> A" "well_placed L P"
  shows "progress_ok L (compile S P)"
proof -
  have "unlocked i" if t: "t \<in> src_threads P" and i: "i \<in> set (instrs (compile S P) t)" for t i
  proof -
    obtain c where c: "c \<in> set (src_code P t)" "i \<in> set (compile_instr S c)"
      using i by (auto simp: compile_def)
    show ?thesis
    proof (cases c)
      case (Op a r x)
      have "op_of c \<subseteq> A" using assms(2) t c(1) by (auto simp: ops_of_def)
      then have "a \<in> A" using Op by (simp add: op_of_def)
      then obtain rw where "S a = Some rw" "\<forall>r x. \<forall>i \<in> set (rw r x). unlocked i"
        using assms(1) by (auto simp: unlocked_rows_def)
      then show ?thesis using c(2) Op by (simp add: compile_instr_def)
    next
      case (SetReg r v)
      then show ?thesis using c(2) by (simp add: compile_instr_def)
    qed
  qed
  then show ?thesis
    using assms(3) by (simp add: progress_ok_def well_placed_def compile_def)
qed

context sc_source_model
begin

text \<open>Hrf_Mapping's `sound_on`, outcomes and deadlock freedom, for every
  program of the class on every layout that places it, under either
  write-back policy: the first infinite class of programs on which a
  scheme is proved sound against the source model.\<close>
theorem homed_sound_on:
  assumes "l1_rows S A" "unlocked_rows S A" "ops_of P \<subseteq> A" "homed L h P"
    and "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L" "well_placed L P"
  shows "sound_on L wb S P"
  unfolding sound_on_def
  using homed_outcomes_allowed[OF assms(1) assms(3) assms(4) assms(5)]
    unlocked_deadlock_free[OF compile_progress_ok[OF assms(2) assms(3) assms(6)]]
  by blast

end

end
