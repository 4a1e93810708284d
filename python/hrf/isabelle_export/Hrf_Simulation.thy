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

end
