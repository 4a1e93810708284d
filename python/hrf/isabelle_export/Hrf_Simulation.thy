(* hrf base theory: a general simulation of the machine of Hrf_Machine by
   the sequentially consistent (SC) semantics of source programs, for every
   program, of any length and any number of threads, on any layout, whose
   every location is accessed by the threads of one work-group (its home;
   locations of different homes may sit on different devices) through rows
   whose only data instruction is an L1 access (LD, ST, INCL1) beside
   flushes, invalidations and locks; and besides, locations homed in a
   device, accessed by its threads only through rows whose one data
   instruction is an increment at its L2 (rsp-new's device and remote
   RMWs: counters shared across work-groups), and read-only locations,
   loaded by any thread. Step (3) of docs/isabelle.md's
   plan for that class: the machine's caches keep, for each location, one
   current value (lv), which every L1 access of the home work-group, and
   every L2 increment of the home device, reads and writes, whatever the
   fetches, write-backs (FIFO or any order), evictions and invalidations in
   between. And deadlock freedom of every
   straight-line program that takes its rmw locks in brackets (every
   program a disciplined scheme compiles, rsp-new's among them): half of
   the goal `sound`. Written by hand, every proof complete. *)
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

text \<open>The instruction a compiled source instruction performs its access
  with: an L1 access, or, for the operations of B, an increment at the L2.\<close>
fun src_access :: "src_op set \<Rightarrow> src_instr \<Rightarrow> instr" where
  "src_access B (Op a r x) = (if a \<in> B then INCL2 r x else access a r x)"
| "src_access B (SetReg r v) = MOV r (EC v)"

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

text \<open>Rows whose one data instruction is an increment at the device's L2
  (rsp-new's device and remote RMWs), beside flushes, invalidations and locks.\<close>
definition l2_row :: "src_op \<Rightarrow> row \<Rightarrow> bool" where
  "l2_row a rw \<longleftrightarrow> (case a of FetchInc _ _ \<Rightarrow> True | _ \<Rightarrow> False)
     \<and> (\<forall>r x. filter visible (rw r x) = [INCL2 r x] \<and> (\<forall>i \<in> set (rw r x). visible i \<or> quiet i))"

definition l2_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> bool" where
  "l2_rows S B \<longleftrightarrow> (\<forall>a \<in> B. \<exists>rw. S a = Some rw \<and> l2_row a rw)"

text \<open>Each location is homed in a work-group or in a device, or read-only:
  a location outside Z and R is accessed only by threads of its work-group
  h x, through the operations outside B; a location of Z only by threads of
  the device of h x, through the operations of B (increments at that
  device's L2); a location of R only by loads, of any thread.\<close>
definition homed_l2 :: "layout \<Rightarrow> (addr \<Rightarrow> wid) \<Rightarrow> addr set \<Rightarrow> addr set \<Rightarrow> src_op set \<Rightarrow> src_program \<Rightarrow> bool" where
  "homed_l2 L h Z R B P \<longleftrightarrow> (\<forall>t \<in> src_threads P. \<forall>i \<in> set (src_code P t). \<forall>a r x. i = Op a r x \<longrightarrow>
     (if a \<in> B then x \<in> Z \<and> x \<notin> R \<and> dev_of L (wg_of L t) = dev_of L (h x)
      else x \<notin> Z \<and> (if x \<in> R then (\<exists>sc rm. a = Load sc rm) else wg_of L t = h x)))"

lemma homed_homed_l2: "homed L h P \<Longrightarrow> homed_l2 L h {} {} {} P"
  by (simp add: homed_def homed_l2_def)

lemma l2_rows_empty [simp]: "l2_rows S {}"
  by (simp add: l2_rows_def)

lemma compiled_code_both:
  assumes "l1_rows S A" "l2_rows S B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
  shows "filter visible (concat (map (compile_instr S) c)) = map (src_access B) c
         \<and> (\<forall>i \<in> set (concat (map (compile_instr S) c)). visible i \<or> quiet i)"
  using assms(3)
proof (induction c)
  case Nil
  then show ?case by simp
next
  case (Cons i c)
  have one: "filter visible (compile_instr S i) = [src_access B i] \<and> (\<forall>j \<in> set (compile_instr S i). visible j \<or> quiet j)"
  proof (cases i)
    case (Op a r x)
    then have a: "a \<in> A \<union> B" using Cons.prems by (simp add: op_of_def)
    show ?thesis
    proof (cases "a \<in> B")
      case True
      then obtain rw where "S a = Some rw" "l2_row a rw"
        using assms(2) by (auto simp: l2_rows_def)
      then show ?thesis using Op True by (simp add: compile_instr_def l2_row_def)
    next
      case False
      then obtain rw where "S a = Some rw" "l1_row a rw"
        using a assms(1) by (auto simp: l1_rows_def)
      then show ?thesis using Op False by (simp add: compile_instr_def l1_row_def)
    qed
  next
    case (SetReg r v)
    then show ?thesis by (simp add: compile_instr_def)
  qed
  have "filter visible (concat (map (compile_instr S) c)) = map (src_access B) c
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
  L2 holds the location dirty. A location of Z (homed in the device of h x,
  accessed only by increments at its L2) is dirty in no L1, and a clean
  line of it in an L1 may be stale.\<close>
definition cache_inv :: "layout \<Rightarrow> (addr \<Rightarrow> wid) \<Rightarrow> addr set \<Rightarrow> state \<Rightarrow> bool" where
  "cache_inv L h Z s \<longleftrightarrow>
     (\<forall>x v. x \<notin> Z \<longrightarrow> l1 s (h x) x = Some (v, Clean, Valid) \<longrightarrow> v = lv L h s x)
     \<and> (\<forall>x v f. l2 s (dev_of L (h x)) x = Some (v, Clean, f) \<longrightarrow> v = mem s x)
     \<and> (\<forall>x w. w \<noteq> h x \<or> x \<in> Z \<longrightarrow> \<not> dirty (l1 s w x))
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
  shows "lv L h s' = lv L h s" "cache_inv L h Z s' = cache_inv L h Z s"
proof -
  show lv: "lv L h s' = lv L h s"
    using assms by (simp add: lv_def[abs_def])
  show "cache_inv L h Z s' = cache_inv L h Z s"
    unfolding cache_inv_def lv using assms by simp
qed

subsection \<open>Environment steps keep the invariant and every current value\<close>

lemma fetch_l1_inv:
  assumes "fetch_l1 L w x s = Some s'" "cache_inv L h Z s"
  shows "cache_inv L h Z s' \<and> lv L h s' = lv L h s"
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
  assumes "fetch_l2 d x s = Some s'" "cache_inv L h Z s"
  shows "cache_inv L h Z s' \<and> lv L h s' = lv L h s"
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
  assumes "dirty (l1 s w x)" "cache_inv L h Z s"
  shows "cache_inv L h Z (write_back_l1 L w x s) \<and> lv L h (write_back_l1 L w x s) = lv L h s"
proof -
  have w: "w = h x" and xZ: "x \<notin> Z"
  proof -
    have "\<not> (w \<noteq> h x \<or> x \<in> Z)"
    proof
      assume "w \<noteq> h x \<or> x \<in> Z"
      then have "\<not> dirty (l1 s w x)" using assms(2) unfolding cache_inv_def by blast
      then show False using assms(1) by simp
    qed
    then show "w = h x" "x \<notin> Z" by simp_all
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
  have inv: "\<forall>y u. y \<notin> Z \<longrightarrow> l1 s (h y) y = Some (u, Clean, Valid) \<longrightarrow> u = lv L h s y"
    "\<forall>y v f. l2 s (dev_of L (h y)) y = Some (v, Clean, f) \<longrightarrow> v = mem s y"
    "\<forall>y w. w \<noteq> h y \<or> y \<in> Z \<longrightarrow> \<not> dirty (l1 s w y)"
    "\<forall>y d. d \<noteq> dev_of L (h y) \<longrightarrow> \<not> dirty (l2 s d y)"
    using assms(2) by (simp_all add: cache_inv_def)
  have c1: "u = lv L h s y" if "y \<notin> Z" "l1 s' (h y) y = Some (u, Clean, Valid)" for y u
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
  have c3: "\<not> dirty (l1 s' v y)" if "v \<noteq> h y \<or> y \<in> Z" for v y
  proof -
    have "l1 s' v y = l1 s v y"
      using that w xZ by (cases "y = x") (auto simp: s')
    then show ?thesis using that inv(3) by simp
  qed
  have c4: "\<not> dirty (l2 s' e y)" if "e \<noteq> dev_of L (h y)" for e y
  proof -
    have "l2 s' e y = l2 s e y"
      using that w by (cases "y = x") (simp_all add: s')
    then show ?thesis using that inv(4) by simp
  qed
  have "cache_inv L h Z s'"
    unfolding cache_inv_def lv_eq using c1 c2 c3 c4 by blast
  then show ?thesis
    using lv_eq by (simp add: s'_def)
qed

lemma write_back_l2_inv:
  assumes "dirty (l2 s d x)" "cache_inv L h Z s"
  shows "cache_inv L h Z (write_back_l2 d x s) \<and> lv L h (write_back_l2 d x s) = lv L h s"
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
  have "cache_inv L h Z s'"
    using assms(2) l2 d unfolding cache_inv_def lv_eq
    by (auto simp: s')
  then show ?thesis
    using lv_eq by (simp add: s'_def)
qed

lemma evict_l1_inv:
  assumes "\<not> dirty (l1 s w x)" "cache_inv L h Z s"
  shows "cache_inv L h Z (set_l1 w x None s) \<and> lv L h (set_l1 w x None s) = lv L h s"
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
  assumes "\<not> dirty (l2 s d x)" "cache_inv L h Z s"
  shows "cache_inv L h Z (set_l2 d x None s) \<and> lv L h (set_l2 d x None s) = lv L h s"
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
  "cache_inv L h Z (s\<lparr>l1_fifo := q\<rparr>) = cache_inv L h Z s" "lv L h (s\<lparr>l1_fifo := q\<rparr>) = lv L h s"
  "cache_inv L h Z (s\<lparr>l2_fifo := q'\<rparr>) = cache_inv L h Z s" "lv L h (s\<lparr>l2_fifo := q'\<rparr>) = lv L h s"
  using same_data[of "s\<lparr>l1_fifo := q\<rparr>" s L h] same_data[of "s\<lparr>l2_fifo := q'\<rparr>" s L h] by simp_all

text \<open>A dequeue pops the fifo's head, and writes back the line it names
  if that line is dirty.\<close>
lemma dequeue_l1_cases:
  assumes "dequeue_l1 L w s = Some s'"
  obtains q where "s' = s\<lparr>l1_fifo := q\<rparr>"
  | q x where "dirty (l1 s w x)" "s' = write_back_l1 L w x (s\<lparr>l1_fifo := q\<rparr>)"
  using assms by (auto simp: dequeue_l1_def Let_def split: list.splits fifo_el.splits if_splits)

lemma dequeue_l2_cases:
  assumes "dequeue_l2 d s = Some s'"
  obtains q where "s' = s\<lparr>l2_fifo := q\<rparr>"
  | q x where "dirty (l2 s d x)" "s' = write_back_l2 d x (s\<lparr>l2_fifo := q\<rparr>)"
  using assms by (auto simp: dequeue_l2_def Let_def split: list.splits fifo_el.splits if_splits)

lemma dequeue_l1_inv:
  assumes "dequeue_l1 L w s = Some s'" "cache_inv L h Z s"
  shows "cache_inv L h Z s' \<and> lv L h s' = lv L h s"
  using assms(1)
proof (cases rule: dequeue_l1_cases)
  case (1 q)
  then show ?thesis using assms(2) by (simp add: fifo_inv)
next
  case (2 q x)
  then show ?thesis
    using write_back_l1_inv[of "s\<lparr>l1_fifo := q\<rparr>" w x L h Z] assms(2) by (simp add: fifo_inv)
qed

lemma dequeue_l2_inv:
  assumes "dequeue_l2 d s = Some s'" "cache_inv L h Z s"
  shows "cache_inv L h Z s' \<and> lv L h s' = lv L h s"
  using assms(1)
proof (cases rule: dequeue_l2_cases)
  case (1 q)
  then show ?thesis using assms(2) by (simp add: fifo_inv)
next
  case (2 q x)
  then show ?thesis
    using write_back_l2_inv[of "s\<lparr>l2_fifo := q\<rparr>" d x L h Z] assms(2) by (simp add: fifo_inv)
qed

lemma env_step_cases:
  assumes "s' \<in> env_step L wb s"
  shows "(\<exists>w x. fetch_l1 L w x s = Some s') \<or> (\<exists>d x. fetch_l2 d x s = Some s')
      \<or> (\<exists>w. dequeue_l1 L w s = Some s') \<or> (\<exists>d. dequeue_l2 d s = Some s')
      \<or> (\<exists>w x. dirty (l1 s w x) \<and> s' = write_back_l1 L w x s) \<or> (\<exists>d x. dirty (l2 s d x) \<and> s' = write_back_l2 d x s)
      \<or> (\<exists>w x. \<not> dirty (l1 s w x) \<and> s' = set_l1 w x None s) \<or> (\<exists>d x. \<not> dirty (l2 s d x) \<and> s' = set_l2 d x None s)"
  using assms unfolding env_step_def write_back_any_def evict_def
  by (auto split: if_splits)

lemma env_step_regs_pc_locks:
  assumes "s' \<in> env_step L wb s"
  shows "regs s' = regs s \<and> pc s' = pc s \<and> rmw_lock s' = rmw_lock s"
proof -
  have f1: "fetch_l1 L w x s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s \<and> rmw_lock s' = rmw_lock s" for w x
    by (auto simp: fetch_l1_def set_l1_def split: if_splits)
  have f2: "fetch_l2 d x s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s \<and> rmw_lock s' = rmw_lock s" for d x
    by (auto simp: fetch_l2_def set_l2_def split: if_splits)
  have w1: "regs (write_back_l1 L w x s1) = regs s1 \<and> pc (write_back_l1 L w x s1) = pc s1 \<and> rmw_lock (write_back_l1 L w x s1) = rmw_lock s1" for w x s1
    by (auto simp: write_back_l1_def enq_l2_def set_l1_def set_l2_def split: option.splits)
  have w2: "regs (write_back_l2 d x s1) = regs s1 \<and> pc (write_back_l2 d x s1) = pc s1 \<and> rmw_lock (write_back_l2 d x s1) = rmw_lock s1" for d x s1
    by (auto simp: write_back_l2_def set_l2_def split: option.splits)
  have q1: "dequeue_l1 L w s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s \<and> rmw_lock s' = rmw_lock s" for w
    using w1 by (auto simp: dequeue_l1_def Let_def split: list.splits fifo_el.splits if_splits)
  have q2: "dequeue_l2 d s = Some s' \<Longrightarrow> regs s' = regs s \<and> pc s' = pc s \<and> rmw_lock s' = rmw_lock s" for d
    using w2 by (auto simp: dequeue_l2_def Let_def split: list.splits fifo_el.splits if_splits)
  show ?thesis
    using env_step_cases[OF assms] f1 f2 q1 q2 w1 w2 by (auto simp: set_l1_def set_l2_def)
qed

lemma env_step_inv:
  assumes "s' \<in> env_step L wb s" "cache_inv L h Z s"
  shows "cache_inv L h Z s' \<and> lv L h s' = lv L h s \<and> regs s' = regs s \<and> pc s' = pc s"
proof -
  have "cache_inv L h Z s' \<and> lv L h s' = lv L h s"
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
  then show ?thesis using env_step_regs_pc_locks[OF assms(1)] by simp
qed

subsection \<open>Read-only locations\<close>

text \<open>A location of R is loaded by any thread and written by none: it is
  dirty nowhere, and each of its lines holds memory's value.\<close>
definition ro_inv :: "addr set \<Rightarrow> state \<Rightarrow> bool" where
  "ro_inv R s \<longleftrightarrow> (\<forall>x \<in> R.
     (\<forall>w v hy f. l1 s w x = Some (v, hy, f) \<longrightarrow> v = mem s x \<and> hy = Clean)
     \<and> (\<forall>d v hy f. l2 s d x = Some (v, hy, f) \<longrightarrow> v = mem s x \<and> hy = Clean))"

lemma ro_clean: "ro_inv R s \<Longrightarrow> x \<in> R \<Longrightarrow> \<not> dirty (l1 s w x) \<and> \<not> dirty (l2 s d x)"
  unfolding ro_inv_def dirty_iff by fastforce

lemma ro_lv: "ro_inv R s \<Longrightarrow> x \<in> R \<Longrightarrow> lv L h s x = mem s x"
  using ro_clean[of R s x] by (simp add: lv_def pick_def)

lemma ro_read:
  assumes "ro_inv R s" "x \<in> R" "readable (l1 s w x)"
  shows "val_of (l1 s w x) = mem s x"
proof -
  obtain v hy where "l1 s w x = Some (v, hy, Valid)"
    using assms(3) by (auto simp: readable_def split: option.splits prod.splits freshness.splits)
  then show ?thesis using assms(1,2) unfolding ro_inv_def by fastforce
qed

lemma invalidate_Some: "invalidate e = Some (v, hy, f) \<Longrightarrow> \<exists>f'. e = Some (v, hy, f')"
  by (auto simp: invalidate_def split: option.splits)

lemma ro_same: "l1 s' = l1 s \<Longrightarrow> l2 s' = l2 s \<Longrightarrow> mem s' = mem s \<Longrightarrow> ro_inv R s' = ro_inv R s"
  by (simp add: ro_inv_def)

lemma ro_set_l1: "ro_inv R s \<Longrightarrow> (x \<in> R \<Longrightarrow> e = None \<or> (\<exists>f. e = Some (mem s x, Clean, f))) \<Longrightarrow> ro_inv R (set_l1 w x e s)"
  unfolding ro_inv_def set_l1_def by auto

lemma ro_set_l2: "ro_inv R s \<Longrightarrow> (x \<in> R \<Longrightarrow> e = None \<or> (\<exists>f. e = Some (mem s x, Clean, f))) \<Longrightarrow> ro_inv R (set_l2 d x e s)"
  unfolding ro_inv_def set_l2_def by auto

lemma ro_set_l1_out: "ro_inv R s \<Longrightarrow> x \<notin> R \<Longrightarrow> ro_inv R (set_l1 w x e s)"
  by (rule ro_set_l1) simp_all

lemma ro_set_l2_out: "ro_inv R s \<Longrightarrow> x \<notin> R \<Longrightarrow> ro_inv R (set_l2 d x e s)"
  by (rule ro_set_l2) simp_all

lemma ro_fifo: "ro_inv R (s\<lparr>l1_fifo := q\<rparr>) = ro_inv R s" "ro_inv R (s\<lparr>l2_fifo := q'\<rparr>) = ro_inv R s"
  by (simp_all add: ro_inv_def)

lemma ro_write_back_l1:
  assumes "dirty (l1 s w x)" "ro_inv R s"
  shows "ro_inv R (write_back_l1 L w x s)"
proof -
  have x: "x \<notin> R" using assms ro_clean by blast
  obtain v f where l1: "l1 s w x = Some (v, Dirty, f)"
    using assms(1) by (auto simp: dirty_iff)
  have "ro_inv R (set_l2 (dev_of L w) x (Some (v, Dirty, Valid)) (set_l1 w x (Some (v, Clean, f)) s))"
    using x assms(2) by (intro ro_set_l2 ro_set_l1) auto
  then show ?thesis
    using l1 by (simp add: write_back_l1_def enq_l2_def ro_inv_def)
qed

lemma ro_write_back_l2:
  assumes "dirty (l2 s d x)" "ro_inv R s"
  shows "ro_inv R (write_back_l2 d x s)"
proof -
  have x: "x \<notin> R" using assms ro_clean by blast
  obtain v f where l2: "l2 s d x = Some (v, Dirty, f)"
    using assms(1) by (auto simp: dirty_iff)
  have "ro_inv R (s\<lparr>mem := (mem s)(x := v)\<rparr>)"
  proof -
    have "y \<in> R \<Longrightarrow> ((mem s)(x := v)) y = mem s y" for y using x by auto
    then show ?thesis using assms(2) unfolding ro_inv_def by simp
  qed
  then have "ro_inv R (set_l2 d x (Some (v, Clean, f)) (s\<lparr>mem := (mem s)(x := v)\<rparr>))"
    using x by (intro ro_set_l2) auto
  then show ?thesis
    using l2 by (simp add: write_back_l2_def)
qed

lemma env_step_ro:
  assumes "s' \<in> env_step L wb s" "ro_inv R s"
  shows "ro_inv R s'"
  using env_step_cases[OF assms(1)]
proof (elim disjE exE conjE)
  fix w x assume f: "fetch_l1 L w x s = Some s'"
  then have rd: "readable (l2 s (dev_of L w) x)"
    and s': "s' = set_l1 w x (Some (val_of (l2 s (dev_of L w) x), Clean, Valid)) s"
    by (auto simp: fetch_l1_def split: if_splits)
  have "val_of (l2 s (dev_of L w) x) = mem s x" if "x \<in> R"
  proof -
    obtain v hy where "l2 s (dev_of L w) x = Some (v, hy, Valid)"
      using rd by (auto simp: readable_def split: option.splits prod.splits freshness.splits)
    then show ?thesis using assms(2) that unfolding ro_inv_def by fastforce
  qed
  then show ?thesis
    unfolding s' using assms(2) by (intro ro_set_l1) auto
next
  fix d x assume "fetch_l2 d x s = Some s'"
  then have s': "s' = set_l2 d x (Some (mem s x, Clean, Valid)) s"
    by (auto simp: fetch_l2_def split: if_splits)
  show ?thesis
    unfolding s' using assms(2) by (intro ro_set_l2) auto
next
  fix w assume "dequeue_l1 L w s = Some s'"
  then show ?thesis
  proof (cases rule: dequeue_l1_cases)
    case (2 q x)
    then show ?thesis using ro_write_back_l1[of "s\<lparr>l1_fifo := q\<rparr>" w x R L] assms(2) by (simp add: ro_fifo)
  qed (use assms(2) in \<open>simp add: ro_fifo\<close>)
next
  fix d assume "dequeue_l2 d s = Some s'"
  then show ?thesis
  proof (cases rule: dequeue_l2_cases)
    case (2 q x)
    then show ?thesis using ro_write_back_l2[of "s\<lparr>l2_fifo := q\<rparr>" d x R] assms(2) by (simp add: ro_fifo)
  qed (use assms(2) in \<open>simp add: ro_fifo\<close>)
next
  fix w x assume "dirty (l1 s w x)" "s' = write_back_l1 L w x s"
  then show ?thesis using assms(2) ro_write_back_l1 by simp
next
  fix d x assume "dirty (l2 s d x)" "s' = write_back_l2 d x s"
  then show ?thesis using assms(2) ro_write_back_l2 by simp
next
  fix w x assume "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
  then show ?thesis using assms(2) ro_set_l1 by simp
next
  fix d x assume "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
  then show ?thesis using assms(2) ro_set_l2 by simp
qed

text \<open>A quiet instruction keeps it: an invalidation keeps a line's value
  and hygiene.\<close>
lemma ro_invalidate:
  assumes "ro_inv R s" "mem s' = mem s"
    "\<forall>w y. l1 s' w y = l1 s w y \<or> l1 s' w y = invalidate (l1 s w y)"
    "\<forall>d y. l2 s' d y = l2 s d y \<or> l2 s' d y = invalidate (l2 s d y)"
  shows "ro_inv R s'"
  unfolding ro_inv_def
proof (intro ballI, rule conjI; intro allI impI)
  fix x w v hy f assume x: "x \<in> R" "l1 s' w x = Some (v, hy, f)"
  then obtain f' where "l1 s w x = Some (v, hy, f')" using assms(3) invalidate_Some by metis
  then show "v = mem s' x \<and> hy = Clean" using assms(1,2) x(1) unfolding ro_inv_def by fastforce
next
  fix x d v hy f assume x: "x \<in> R" "l2 s' d x = Some (v, hy, f)"
  then obtain f' where "l2 s d x = Some (v, hy, f')" using assms(4) invalidate_Some by metis
  then show "v = mem s' x \<and> hy = Clean" using assms(1,2) x(1) unfolding ro_inv_def by fastforce
qed

lemma quiet_ro:
  assumes "exec L t i s = Some s'" "quiet i" "ro_inv R s"
  shows "ro_inv R s'"
proof (cases "\<exists>sc. i = INVL1 sc \<or> i = INVL2 sc")
  case True
  then have "mem s' = mem s" "\<forall>w y. l1 s' w y = l1 s w y \<or> l1 s' w y = invalidate (l1 s w y)"
    "\<forall>d y. l2 s' d y = l2 s d y \<or> l2 s' d y = invalidate (l2 s d y)"
    using assms(1) by auto
  then show ?thesis by (rule ro_invalidate[OF assms(3)])
next
  case False
  then have e: "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s"
    using assms(1,2) by (cases i; auto simp: Let_def split: if_splits)+
  show ?thesis using assms(3) ro_same[OF e] by simp
qed

subsection \<open>Instructions of the home work-group\<close>

text \<open>A quiet instruction changes neither the current values nor the
  invariant, nor any register.\<close>
lemma quiet_inv:
  assumes "exec L t i s = Some s'" "quiet i" "cache_inv L h Z s"
  shows "cache_inv L h Z s' \<and> lv L h s' = lv L h s \<and> regs s' = regs s"
proof (cases i)
  case (INVL1 sc)
  define s1 where "s1 = s\<lparr>l1 := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then invalidate \<circ> l1 s w else l1 s w)\<rparr>"
  have s': "s' = s1" using assms(1) INVL1 by (simp add: s1_def)
  have lv_eq: "lv L h s1 = lv L h s"
    by (rule ext) (simp add: lv_def s1_def pick_def)
  have l1: "l1 s1 w y = l1 s w y \<or> l1 s1 w y = invalidate (l1 s w y)" for w y
    by (simp add: s1_def)
  have "cache_inv L h Z s1"
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
  have "cache_inv L h Z s1"
    using assms(3) l2 unfolding cache_inv_def lv_eq
    by (simp add: s1_def) (metis invalidate_clean)
  then show ?thesis using lv_eq s' by (simp add: s1_def)
qed (use assms in \<open>auto simp: cache_inv_def lv_def[abs_def] Let_def set_reg_def split: if_splits\<close>)

text \<open>An access of the home work-group: what it reads is the current value,
  and it leaves the invariant with the location's new current value.\<close>
lemma readable_lv:
  assumes "readable (l1 s (h x) x)" "cache_inv L h Z s" "x \<notin> Z"
  shows "val_of (l1 s (h x) x) = lv L h s x"
proof -
  obtain v hy where l1: "l1 s (h x) x = Some (v, hy, Valid)"
    using assms(1) by (auto simp: readable_def split: option.splits prod.splits freshness.splits)
  then show ?thesis
    using assms(2,3) by (cases hy) (auto simp: cache_inv_def lv_def)
qed

lemma write_l1_inv:
  assumes "cache_inv L h Z s" "w = h x" "x \<notin> Z"
  shows "cache_inv L h Z (set_l1 w x (Some (v, Dirty, Valid)) s)
         \<and> lv L h (set_l1 w x (Some (v, Dirty, Valid)) s) = (lv L h s)(x := v)"
proof -
  define s' where "s' = set_l1 w x (Some (v, Dirty, Valid)) s"
  have lv_eq: "lv L h s' = (lv L h s)(x := v)"
  proof
    fix y
    show "lv L h s' y = ((lv L h s)(x := v)) y"
      using assms(2) by (cases "y = x") (auto simp: s'_def set_l1_def lv_def)
  qed
  have "cache_inv L h Z s'"
    using assms unfolding cache_inv_def lv_eq
    by (auto simp: s'_def set_l1_def)
  then show ?thesis using lv_eq by (simp add: s'_def)
qed

text \<open>An increment of a location of Z at the L2 of its device: what it reads
  is the current value, and it leaves the invariant with the location's new
  current value.\<close>
lemma readable_l2_lv:
  assumes "readable (l2 s (dev_of L (h x)) x)" "cache_inv L h Z s" "x \<in> Z"
  shows "val_of (l2 s (dev_of L (h x)) x) = lv L h s x"
proof -
  obtain v hy where l2: "l2 s (dev_of L (h x)) x = Some (v, hy, Valid)"
    using assms(1) by (auto simp: readable_def split: option.splits prod.splits freshness.splits)
  have "\<not> dirty (l1 s (h x) x)"
    using assms(2,3) by (simp add: cache_inv_def)
  then show ?thesis
    using l2 assms(2) by (cases hy) (auto simp: cache_inv_def lv_def)
qed

lemma write_l2_inv:
  assumes "cache_inv L h Z s" "d = dev_of L (h x)" "x \<in> Z"
  shows "cache_inv L h Z (set_l2 d x (Some (v, Dirty, Valid)) s)
         \<and> lv L h (set_l2 d x (Some (v, Dirty, Valid)) s) = (lv L h s)(x := v)"
proof -
  define s' where "s' = set_l2 d x (Some (v, Dirty, Valid)) s"
  have nd: "\<not> dirty (l1 s (h x) x)"
    using assms(1,3) by (simp add: cache_inv_def)
  have lv_eq: "lv L h s' = (lv L h s)(x := v)"
  proof
    fix y
    show "lv L h s' y = ((lv L h s)(x := v)) y"
      using assms(2) nd by (cases "y = x") (auto simp: s'_def set_l2_def lv_def pick_def)
  qed
  have "cache_inv L h Z s'"
    using assms unfolding cache_inv_def lv_eq
    by (auto simp: s'_def set_l2_def)
  then show ?thesis using lv_eq by (simp add: s'_def)
qed

section \<open>The simulation\<close>

text \<open>A machine state and an SC state correspond when the registers agree,
  each thread's SC position counts the visible instructions it has done,
  the SC memory holds every location's current value, and the invariant
  holds.\<close>
definition sim :: "layout \<Rightarrow> (addr \<Rightarrow> wid) \<Rightarrow> addr set \<Rightarrow> addr set \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> sc_state \<Rightarrow> bool" where
  "sim L h Z R S P s \<sigma> \<longleftrightarrow>
     regs s = sc_regs \<sigma> \<and> sc_mem \<sigma> = lv L h s \<and> cache_inv L h Z s \<and> ro_inv R s
     \<and> (\<forall>t \<in> src_threads P. sc_pc \<sigma> t = length (filter visible (take (pc s t) (instrs (compile S P) t))))"

lemma sim_initial: "sim L h Z R S P (initial (src_init P)) (sc_initial P)"
  by (simp add: sim_def initial_def sc_initial_def lv_def[abs_def] pick_def cache_inv_def ro_inv_def)

lemma sim_env:
  assumes "sim L h Z R S P s \<sigma>" "s' \<in> env_step L wb s"
  shows "sim L h Z R S P s' \<sigma>"
proof -
  have "cache_inv L h Z s" "ro_inv R s"
    using assms(1) by (simp_all add: sim_def)
  note e = env_step_inv[OF assms(2) this(1)] env_step_ro[OF assms(2) this(2)]
  show ?thesis
    using assms(1) e by (simp add: sim_def)
qed

lemma sim_thread:
  assumes "sim L h Z R S P s \<sigma>" "t \<in> src_threads P" "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" and home: "homed_l2 L h Z R B P"
  shows "\<exists>\<sigma>'. (\<sigma>, \<sigma>') \<in> (sc_step P)\<^sup>= \<and> sim L h Z R S P s' \<sigma>'"
proof -
  define xs where "xs = instrs (compile S P) t"
  define n where "n = pc s t"
  define i where "i = xs ! n"
  have xs: "xs = concat (map (compile_instr S) (src_code P t))"
    by (simp add: xs_def compile_def)
  have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
    using rows(3) assms(2) by (auto simp: ops_of_def)
  obtain z where n: "n < length xs" and z: "exec L t i s = Some z" "s' = set_pc t (next_pc t i s) z"
    using assms(3)
    by (auto simp: step_thread_def xs_def n_def i_def compile_def Let_def split: if_splits)
  have "pc z = pc s"
    using z(1) by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)
  then have s': "exec L t i s = Some (s'\<lparr>pc := pc s\<rparr>)" "pc s' = (pc s)(t := next_pc t i s)"
    using z by (simp_all add: set_pc_def)
  have vq: "visible i \<or> quiet i"
    using compiled_code(2)[OF rows(1,2) ops] n by (simp add: i_def xs[symmetric])
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
    have ci: "cache_inv L h Z s" and ri: "ro_inv R s"
      using assms(1) by (simp_all add: sim_def)
    have qi: "cache_inv L h Z (s'\<lparr>pc := pc s\<rparr>) \<and> lv L h (s'\<lparr>pc := pc s\<rparr>) = lv L h s
        \<and> regs (s'\<lparr>pc := pc s\<rparr>) = regs s"
      by (rule quiet_inv[OF s'(1) q ci])
    have "cache_inv L h Z (s'\<lparr>pc := pc s\<rparr>) = cache_inv L h Z s'" "lv L h (s'\<lparr>pc := pc s\<rparr>) = lv L h s'"
      using same_data[of "s'\<lparr>pc := pc s\<rparr>" s' L h] by simp_all
    moreover have "ro_inv R s'"
      using quiet_ro[OF s'(1) q ri] ro_same[of "s'\<lparr>pc := pc s\<rparr>" s' R] by simp
    ultimately have inv: "cache_inv L h Z s' \<and> ro_inv R s' \<and> lv L h s' = lv L h s \<and> regs s' = regs s"
      using qi by simp
    have "filter visible (take (Suc n) xs) = filter visible (take n xs)"
      using filter_take_Suc[OF n] False by (simp add: i_def)
    then have "sim L h Z R S P s' \<sigma>"
      using assms(1) inv pcs s'(2) nxt by (auto simp: sim_def xs_def n_def)
    then show ?thesis by blast
  next
    case True
    define k where "k = length (filter visible (take n xs))"
    have k: "k < length (src_code P t)" and ik: "i = src_access B (src_code P t ! k)"
      using filter_take_nth[OF n, of visible] True compiled_code(1)[OF rows(1,2) ops]
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
    have inv: "cache_inv L h Z s" "sc_mem \<sigma> = lv L h s" "regs s = sc_regs \<sigma>" "ro_inv R s"
      using assms(1) by (simp_all add: sim_def)
    have data: "cache_inv L h Z s' \<and> ro_inv R s' \<and> sc_mem \<sigma>' = lv L h s' \<and> regs s' = sc_regs \<sigma>'"
    proof (cases "src_code P t ! k")
      case (Op a r x)
      show ?thesis
      proof (cases "a \<in> B")
        case True
        have hx: "dev_of L (wg_of L t) = dev_of L (h x)" and xZ: "x \<in> Z" and xR: "x \<notin> R"
          using home assms(2) c_in Op True by (auto simp: homed_l2_def)
        obtain sc rm where a: "a = FetchInc sc rm"
        proof (cases a)
          case (FetchInc sc rm)
          then show ?thesis using that by simp
        qed (use rows(2) True in \<open>auto simp: l2_rows_def l2_row_def\<close>)
        have i: "i = INCL2 r x" using ik Op True by simp
        define d where "d = dev_of L (h x)"
        then have rd: "readable (l2 s d x)"
          using s'(1) hx i by (auto simp: Let_def split: if_splits)
        define v where "v = val_of (l2 s d x)"
        define s2 where "s2 = set_reg t r v s"
        have s1: "s'\<lparr>pc := pc s\<rparr> = enq_l2 d (Addr x) (set_l2 d x (Some (v + 1, Dirty, Valid)) s2)"
          using s'(1) hx i rd by (auto simp: Let_def v_def s2_def d_def)
        have inv2: "cache_inv L h Z s2" "lv L h s2 = lv L h s"
          using same_data[of s2 s] inv(1) by (simp_all add: s2_def set_reg_def)
        have w: "cache_inv L h Z (set_l2 d x (Some (v + 1, Dirty, Valid)) s2)
              \<and> lv L h (set_l2 d x (Some (v + 1, Dirty, Valid)) s2) = (lv L h s2)(x := v + 1)"
          by (rule write_l2_inv[OF inv2(1) d_def xZ])
        have e: "l1 s' = l1 (set_l2 d x (Some (v + 1, Dirty, Valid)) s2)"
                "l2 s' = l2 (set_l2 d x (Some (v + 1, Dirty, Valid)) s2)"
                "mem s' = mem (set_l2 d x (Some (v + 1, Dirty, Valid)) s2)"
                "regs s' = regs s2"
          using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
          by (simp_all add: enq_l2_def set_l2_def)
        have vlv: "v = lv L h s x"
          using readable_l2_lv[OF rd[unfolded d_def] inv(1) xZ] by (simp add: v_def d_def)
        have ro: "ro_inv R s'"
          using ro_same[OF e(1-3)] ro_set_l2_out[OF ro_same[of s2 s, THEN iffD2, OF _ _ _ inv(4)] xR]
          by (simp add: s2_def set_reg_def)
        show ?thesis
          using w same_data[OF e(1-3)] e(4) inv inv2 Op a vlv ro
          by (simp add: \<sigma>'_def s2_def set_reg_def sc_set_reg_def)
      next
        case notB: False
      have xZ: "x \<notin> Z" and hx0: "x \<notin> R \<Longrightarrow> wg_of L t = h x" and xR0: "x \<in> R \<Longrightarrow> \<exists>sc rm. a = Load sc rm"
        using home assms(2) c_in Op notB by (auto simp: homed_l2_def)
      have ik: "i = access a r x" using ik Op notB by simp
      show ?thesis
      proof (cases a)
        case (Load sc rm)
        define w where "w = wg_of L t"
        have i: "i = LD r x" using ik Op Load by (simp add: access_def)
        then have rd: "readable (l1 s w x)" and
          s1: "s'\<lparr>pc := pc s\<rparr> = set_reg t r (val_of (l1 s w x)) s"
          using s'(1) by (auto simp: Let_def w_def split: if_splits)
        have e: "l1 s' = l1 s" "l2 s' = l2 s" "mem s' = mem s"
            "regs s' = regs (set_reg t r (val_of (l1 s w x)) s)"
          using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
          by (simp_all add: set_reg_def)
        have val: "val_of (l1 s w x) = lv L h s x"
        proof (cases "x \<in> R")
          case True
          then show ?thesis using ro_read[OF inv(4) True rd] ro_lv[OF inv(4) True] by simp
        next
          case False
          then show ?thesis using readable_lv[OF _ inv(1) xZ] rd hx0 by (simp add: w_def)
        qed
        show ?thesis
          using same_data[OF e(1-3)] ro_same[OF e(1-3)] e(4) inv val Op Load
          by (simp add: \<sigma>'_def sc_set_reg_def set_reg_def)
      next
        case (Store sc rm)
        have i: "i = ST (ER r) x" using ik Op Store by (simp add: access_def)
        have xR: "x \<notin> R" using xR0 Store by auto
        have hx: "wg_of L t = h x" using hx0 xR by blast
        define v where "v = regs s t r"
        have s1: "s'\<lparr>pc := pc s\<rparr> = enq_l1 (h x) (Addr x) (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
          using s'(1) hx i by (auto simp: Let_def v_def split: if_splits)
        have w: "cache_inv L h Z (set_l1 (h x) x (Some (v, Dirty, Valid)) s)
              \<and> lv L h (set_l1 (h x) x (Some (v, Dirty, Valid)) s) = (lv L h s)(x := v)"
          by (rule write_l1_inv[OF inv(1) refl xZ])
        have e: "l1 s' = l1 (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
                "l2 s' = l2 (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
                "mem s' = mem (set_l1 (h x) x (Some (v, Dirty, Valid)) s)"
                "regs s' = regs s"
          using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
          by (simp_all add: enq_l1_def set_l1_def)
        show ?thesis
          using w same_data[OF e(1-3)] ro_same[OF e(1-3)] ro_set_l1_out[OF inv(4) xR] e(4) inv Op Store
          by (simp add: \<sigma>'_def v_def)
      next
        case (FetchInc sc rm)
        have i: "i = INCL1 r x" using ik Op FetchInc by (simp add: access_def)
        have xR: "x \<notin> R" using xR0 FetchInc by auto
        have hx: "wg_of L t = h x" using hx0 xR by blast
        from i have rd: "readable (l1 s (h x) x)"
          using s'(1) hx by (auto simp: Let_def split: if_splits)
        define v where "v = val_of (l1 s (h x) x)"
        define s2 where "s2 = set_reg t r v s"
        have s1: "s'\<lparr>pc := pc s\<rparr> = enq_l1 (h x) (Addr x) (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
          using s'(1) hx i rd by (auto simp: Let_def v_def s2_def)
        have inv2: "cache_inv L h Z s2" "lv L h s2 = lv L h s"
          using same_data[of s2 s] inv(1) by (simp_all add: s2_def set_reg_def)
        have w: "cache_inv L h Z (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)
              \<and> lv L h (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2) = (lv L h s2)(x := v + 1)"
          by (rule write_l1_inv[OF inv2(1) refl xZ])
        have e: "l1 s' = l1 (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
                "l2 s' = l2 (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
                "mem s' = mem (set_l1 (h x) x (Some (v + 1, Dirty, Valid)) s2)"
                "regs s' = regs s2"
          using arg_cong[OF s1, of l1] arg_cong[OF s1, of l2] arg_cong[OF s1, of mem] arg_cong[OF s1, of regs]
          by (simp_all add: enq_l1_def set_l1_def)
        have vlv: "v = lv L h s x"
          using readable_lv[OF rd inv(1) xZ] by (simp add: v_def)
        have ro: "ro_inv R s'"
          using ro_same[OF e(1-3)] ro_set_l1_out[OF ro_same[of s2 s, THEN iffD2, OF _ _ _ inv(4)] xR]
          by (simp add: s2_def set_reg_def)
        show ?thesis
          using w same_data[OF e(1-3)] e(4) inv inv2 Op FetchInc vlv ro
          by (simp add: \<sigma>'_def s2_def set_reg_def sc_set_reg_def)
      qed
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
        using same_data[OF e(1-3)] ro_same[OF e(1-3)] e(4) inv SetReg
        by (simp add: \<sigma>'_def set_reg_def sc_set_reg_def)
    qed
    have pc_\<sigma>': "sc_pc \<sigma>' = (sc_pc \<sigma>)(t := Suc k)"
      by (simp add: \<sigma>'_def)
    have "sim L h Z R S P s' \<sigma>'"
      using data assms(1) pcs s'(2) nxt take' pc_\<sigma>'
      by (auto simp: sim_def xs_def n_def)
    then show ?thesis using st by blast
  qed
qed

lemma sim_reachable:
  assumes "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "homed_l2 L h Z R B P"
  shows "\<exists>\<sigma>. (sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>* \<and> sim L h Z R S P s \<sigma>"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using assms(1) by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    then show ?case using sim_initial by blast
  next
    case (step s1 s2)
    then obtain \<sigma> where \<sigma>: "(sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>*" "sim L h Z R S P s1 \<sigma>"
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
      obtain \<sigma>' where \<sigma>': "(\<sigma>, \<sigma>') \<in> (sc_step P)\<^sup>=" "sim L h Z R S P s2 \<sigma>'"
        using sim_thread[OF \<sigma>(2) thr(1) thr(2) assms(2-5)] by blast
      have "(\<sigma>, \<sigma>') \<in> (sc_step P)\<^sup>*"
        using r_into_rtrancl[OF \<sigma>'(1)] by (simp only: rtrancl_reflcl)
      then have "(sc_initial P, \<sigma>') \<in> (sc_step P)\<^sup>*"
        by (rule rtrancl_trans[OF \<sigma>(1)])
      then show ?thesis using \<sigma>'(2) by blast
    next
      case env
      have "sim L h Z R S P s2 \<sigma>"
        by (rule sim_env[OF \<sigma>(2) env])
      then show ?thesis using \<sigma>(1) by blast
    qed
  qed
qed

section \<open>The theorem\<close>

text \<open>For every program whose locations are each homed in a work-group
  (h x, which the layout has, on a device it has) and accessed by it
  through rows whose one data instruction is an L1 access, or homed in a
  device (Z, the device of h x) and accessed by its threads through rows
  whose one data instruction is an increment at its L2, or read-only (R,
  loaded by any thread through L1 rows): every outcome of the machine,
  under either write-back policy, is an SC outcome of the source program.
  Race-freedom is not needed.\<close>
theorem homed_l2_outcomes_sc:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "homed_l2 L h Z R B P"
    and "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> sc_outcomes P"
proof
  fix ob assume "ob \<in> outcomes L wb (compile S P) (initial (src_init P))"
  then obtain s where s: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    "is_final L (compile S P) s" "ob = (regs s, mem s)"
    by (auto simp: outcomes_def)
  obtain \<sigma> where \<sigma>: "(sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>*" "sim L h Z R S P s \<sigma>"
    using sim_reachable[OF s(1) assms(1-4)] by blast
  have mem: "sc_mem \<sigma> = mem s"
  proof
    fix x
    have "\<not> dirty (l1 s (h x) x)" "\<not> dirty (l2 s (dev_of L (h x)) x)"
      using s(2) assms(5) by (auto simp: is_final_def)
    then show "sc_mem \<sigma> x = mem s x"
      using \<sigma>(2) by (simp add: sim_def lv_def)
  qed
  have fin: "\<forall>t \<in> src_threads P. sc_pc \<sigma> t \<ge> length (src_code P t)"
  proof
    fix t assume t: "t \<in> src_threads P"
    have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B"
      using assms(3) t by (auto simp: ops_of_def)
    have "pc s t \<ge> length (instrs (compile S P) t)"
      using s(2) t by (auto simp: is_final_def compile_def)
    then have "sc_pc \<sigma> t = length (filter visible (instrs (compile S P) t))"
      using \<sigma>(2) t by (simp add: sim_def)
    then show "sc_pc \<sigma> t \<ge> length (src_code P t)"
      using compiled_code(1)[OF assms(1,2) ops] by (simp add: compile_def)
  qed
  have "ob = (sc_regs \<sigma>, sc_mem \<sigma>)"
    using s(3) \<sigma>(2) mem by (simp add: sim_def)
  then show "ob \<in> sc_outcomes P"
    using \<sigma>(1) fin by (auto simp: sc_outcomes_def)
qed

text \<open>Every location homed in a work-group.\<close>
corollary homed_outcomes_sc:
  assumes "l1_rows S A" "ops_of P \<subseteq> A" "homed L h P"
    and "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> sc_outcomes P"
  using homed_l2_outcomes_sc[OF assms(1) l2_rows_empty _ homed_homed_l2[OF assms(3)] assms(4)] assms(2)
  by simp

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

theorem homed_l2_outcomes_allowed:
  assumes "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "homed_l2 L h Z R B P"
    and "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L" "\<not> racy L P"
  shows "outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> allowed L P"
  using homed_l2_outcomes_sc[OF assms(1-5)] allows_sc[OF assms(6)] by blast

end

section \<open>Deadlock freedom of straight-line programs with bracketed rmw locks\<close>

text \<open>A program that does not branch, takes no lock of the lock file, and
  takes its rmw locks in brackets (an LKrmw when it holds none, the UNLKrmw
  of the same scope before any other lock instruction, none held at the
  end: `disciplined`) cannot deadlock ([RSP15] sec. 5 asks it of a
  compiled program): from every reachable state each thread inside a
  bracket runs to its UNLKrmw, so that no rmw lock is held; the environment
  drains every fifo (a dirty line's address is always queued, `queued`)
  and fetches what a load or an RMW needs, so each thread in turn runs to
  its end, one bracket at a time; a last drain leaves a final state. For
  any layout and either write-back policy.\<close>

text \<open>Instructions that neither take a lock nor branch.\<close>
fun unlocked :: "instr \<Rightarrow> bool" where
  "unlocked (LD _ _) = True" | "unlocked (ST _ _) = True" | "unlocked (INCL1 _ _) = True"
| "unlocked (INCL2 _ _) = True"
| "unlocked (FLUL1 _) = True" | "unlocked (FLUL2 _) = True" | "unlocked (INVL1 _) = True"
| "unlocked (INVL2 _) = True" | "unlocked (MOV _ _) = True" | "unlocked _ = False"

text \<open>The rmw lock a code holds after its first instructions: the scope of
  its last LKrmw, unless an UNLKrmw followed it.\<close>
fun hold :: "scope option \<Rightarrow> instr \<Rightarrow> scope option" where
  "hold h (LKrmw sc) = Some sc" | "hold h (UNLKrmw sc) = None" | "hold h _ = h"

definition held :: "instr list \<Rightarrow> nat \<Rightarrow> scope option" where
  "held c p = foldl hold None (take p c)"

text \<open>The lock discipline, instruction by instruction: an LKrmw only when no
  rmw lock is held, an UNLKrmw only of the scope held, anything else
  unlocked; and no rmw lock held at the end.\<close>
fun lock_ok :: "scope option \<Rightarrow> instr \<Rightarrow> bool" where
  "lock_ok h (LKrmw sc) = (h = None)"
| "lock_ok h (UNLKrmw sc) = (h = Some sc)"
| "lock_ok h i = unlocked i"

fun disc :: "scope option \<Rightarrow> instr list \<Rightarrow> bool" where
  "disc h [] = (h = None)"
| "disc h (i # rest) = (lock_ok h i \<and> disc (hold h i) rest)"

definition disciplined :: "instr list \<Rightarrow> bool" where
  "disciplined c \<longleftrightarrow> disc None c"

lemma disc_at:
  "disc h c \<Longrightarrow> p < length c \<Longrightarrow> lock_ok (foldl hold h (take p c)) (c ! p)"
proof (induction c arbitrary: h p)
  case (Cons i rest)
  then show ?case by (cases p) auto
qed simp

lemma disc_end: "disc h c \<Longrightarrow> foldl hold h c = None"
  by (induction c arbitrary: h) auto

lemma disc_append: "disc h a \<Longrightarrow> disc None b \<Longrightarrow> disc h (a @ b)"
  by (induction a arbitrary: h) auto

lemma disciplined_at: "disciplined c \<Longrightarrow> p < length c \<Longrightarrow> lock_ok (held c p) (c ! p)"
  by (simp add: disciplined_def held_def disc_at)

lemma held_Suc: "p < length c \<Longrightarrow> held c (Suc p) = hold (held c p) (c ! p)"
  by (simp add: held_def take_Suc_conv_app_nth)

lemma held_end: "disciplined c \<Longrightarrow> length c \<le> p \<Longrightarrow> held c p = None"
  by (simp add: disciplined_def held_def disc_end)

lemma held_0 [simp]: "held c 0 = None"
  by (simp add: held_def)

lemma hold_unlocked: "unlocked i \<Longrightarrow> hold h i = h"
  by (cases i) auto

lemma disciplined_concat: "\<forall>c \<in> set cs. disciplined c \<Longrightarrow> disciplined (concat cs)"
  by (induction cs) (auto simp: disciplined_def disc_append)

text \<open>Instructions that use no lock of the lock file.\<close>
fun lockfile_free :: "instr \<Rightarrow> bool" where
  "lockfile_free (LK _) = False" | "lockfile_free (UNLK _) = False" | "lockfile_free _ = True"

lemma disciplined_lockfile_free:
  assumes "disciplined c" "i \<in> set c"
  shows "lockfile_free i"
proof -
  obtain p where p: "p < length c" "c ! p = i"
    using assms(2) by (auto simp: in_set_conv_nth)
  then have "lock_ok (held c p) i"
    using disciplined_at[OF assms(1)] by blast
  then show ?thesis by (cases i) auto
qed

definition progress_ok :: "layout \<Rightarrow> program \<Rightarrow> bool" where
  "progress_ok L P \<longleftrightarrow> finite (threads P) \<and> finite (wgs L) \<and> finite (devs L)
     \<and> (\<forall>t \<in> threads P. wg_of L t \<in> wgs L \<and> disciplined (instrs P t))
     \<and> (\<forall>w \<in> wgs L. dev_of L w \<in> devs L)"

text \<open>Every dirty line has its address in its cache's fifo; no lock of the
  lock file is held.\<close>
definition queued :: "state \<Rightarrow> bool" where
  "queued s \<longleftrightarrow> (\<forall>w x. dirty (l1 s w x) \<longrightarrow> Addr x \<in> set (l1_fifo s w))
     \<and> (\<forall>d x. dirty (l2 s d x) \<longrightarrow> Addr x \<in> set (l2_fifo s d))
     \<and> lockfile s = (\<lambda>_ _. None)"

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
  assumes "exec L t i s = Some s'" "lockfile_free i" "queued s"
  shows "queued s'"
  using assms
  by (cases i) (auto simp: queued_def Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)

lemma exec_pc: "exec L t i s = Some s' \<Longrightarrow> pc s' = pc s"
  by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)

lemma step_queued:
  assumes "(s, s') \<in> step L wb P" "queued s" "\<forall>t \<in> threads P. \<forall>i \<in> set (instrs P t). lockfile_free i"
  shows "queued s'"
proof -
  { fix t assume t: "t \<in> threads P" and st: "step_thread L P t s = Some s'"
    then have pc: "pc s t < length (instrs P t)"
      by (auto simp: step_thread_def split: if_splits)
    then have u: "lockfile_free (instrs P t ! pc s t)"
      using assms(3) t nth_mem by blast
    obtain z where "exec L t (instrs P t ! pc s t) s = Some z" "s' = set_pc t (next_pc t (instrs P t ! pc s t) s) z"
      using st by (auto simp: step_thread_def Let_def split: if_splits)
    then have ?thesis
      using exec_queued[OF _ u assms(2)] by (auto simp: queued_def set_pc_def) }
  then show ?thesis
    using assms env_step_queued by (auto simp: step_def)
qed

subsection \<open>The rmw locks held are those of the brackets the threads are in\<close>

definition lock_inv :: "layout \<Rightarrow> program \<Rightarrow> state \<Rightarrow> bool" where
  "lock_inv L P s \<longleftrightarrow>
     (\<forall>t \<in> threads P. \<forall>sc. held (instrs P t) (pc s t) = Some sc
        \<longrightarrow> (\<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s w = Some t))
     \<and> (\<forall>w t. rmw_lock s w = Some t \<longrightarrow> t \<in> threads P
        \<and> (\<exists>sc. held (instrs P t) (pc s t) = Some sc \<and> w \<in> wgs_in L sc (wg_of L t)))"

lemma lock_inv_initial: "lock_inv L P (initial m)"
  by (simp add: lock_inv_def initial_def)

lemma lock_invD1:
  "lock_inv L P s \<Longrightarrow> t \<in> threads P \<Longrightarrow> held (instrs P t) (pc s t) = Some sc
    \<Longrightarrow> w \<in> wgs_in L sc (wg_of L t) \<Longrightarrow> rmw_lock s w = Some t"
  unfolding lock_inv_def by blast

lemma lock_invD2:
  "lock_inv L P s \<Longrightarrow> rmw_lock s w = Some t
    \<Longrightarrow> t \<in> threads P \<and> (\<exists>sc. held (instrs P t) (pc s t) = Some sc \<and> w \<in> wgs_in L sc (wg_of L t))"
  unfolding lock_inv_def by blast

text \<open>The invariant reads a state's locks and the locks its threads hold.\<close>
lemma lock_inv_cong:
  assumes "\<And>u. held (instrs P u) (pc s' u) = held (instrs P u) (pc s u)" "rmw_lock s' = rmw_lock s"
  shows "lock_inv L P s' \<longleftrightarrow> lock_inv L P s"
  unfolding lock_inv_def by (simp only: assms)

lemma exec_unlocked_locks: "exec L t i s = Some z \<Longrightarrow> unlocked i \<Longrightarrow> rmw_lock z = rmw_lock s"
  by (cases i) (auto simp: Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def split: if_splits)

lemma thread_lock_inv:
  assumes st: "step_thread L P t s = Some s'" and inv: "lock_inv L P s"
    and dis: "\<forall>u \<in> threads P. disciplined (instrs P u)"
  shows "lock_inv L P s'"
proof -
  have t: "t \<in> threads P" and p: "pc s t < length (instrs P t)"
    using st by (auto simp: step_thread_def split: if_splits)
  define c where "c = instrs P t"
  define i where "i = c ! pc s t"
  obtain z where z: "exec L t i s = Some z" and s': "s' = set_pc t (next_pc t i s) z"
    using st by (auto simp: step_thread_def Let_def c_def i_def split: if_splits)
  have ok: "lock_ok (held c (pc s t)) i"
    using dis t p disciplined_at by (simp add: c_def i_def)
  have np: "next_pc t i s = Suc (pc s t)"
    using ok by (cases i) (auto simp: next_pc_def)
  have hs: "held c (Suc (pc s t)) = hold (held c (pc s t)) i"
    using p held_Suc by (simp add: c_def i_def)
  have pcs: "pc s' = (pc s)(t := Suc (pc s t))" and lks: "rmw_lock s' = rmw_lock z"
    using s' np exec_pc[OF z] by (simp_all add: set_pc_def)
  have hu: "held (instrs P u) (pc s' u) = held (instrs P u) (pc s u)" if "u \<noteq> t" for u
    using pcs that by simp
  have ht: "held (instrs P t) (pc s' t) = hold (held c (pc s t)) i"
    using pcs hs by (simp add: c_def)
  consider (U) "unlocked i" | (L) sc where "i = LKrmw sc" | (R) sc where "i = UNLKrmw sc"
    using ok by (cases i) auto
  then show ?thesis
  proof cases
    case U
    have "held (instrs P u) (pc s' u) = held (instrs P u) (pc s u)" for u
      using hu ht hold_unlocked[OF U] by (cases "u = t") (simp_all add: c_def)
    moreover have "rmw_lock s' = rmw_lock s"
      using lks exec_unlocked_locks[OF z U] by simp
    ultimately show ?thesis
      using inv lock_inv_cong by blast
  next
    case (L sc)
    define W where "W = wgs_in L sc (wg_of L t)"
    have h0: "held c (pc s t) = None" using ok L by simp
    have free: "\<forall>w \<in> W. rmw_lock s w = None" and
      lz: "rmw_lock z = (\<lambda>w. if w \<in> W then Some t else rmw_lock s w)"
      using z L by (auto simp: W_def split: if_splits)
    have ht': "held (instrs P t) (pc s' t) = Some sc" using ht h0 L by simp
    show ?thesis
      unfolding lock_inv_def
    proof (rule conjI; intro ballI allI impI)
      fix u sc' w assume u: "u \<in> threads P" and hu': "held (instrs P u) (pc s' u) = Some sc'"
        and w: "w \<in> wgs_in L sc' (wg_of L u)"
      show "rmw_lock s' w = Some u"
      proof (cases "u = t")
        case True
        then show ?thesis using hu' ht' w lks lz by (simp add: W_def)
      next
        case False
        then have hs': "held (instrs P u) (pc s u) = Some sc'" using hu hu' by simp
        have old: "rmw_lock s w = Some u" by (rule lock_invD1[OF inv u hs' w])
        then have "w \<notin> W" using free by auto
        then show ?thesis using lks lz old by simp
      qed
    next
      fix w u assume wu: "rmw_lock s' w = Some u"
      show "u \<in> threads P \<and> (\<exists>sc'. held (instrs P u) (pc s' u) = Some sc' \<and> w \<in> wgs_in L sc' (wg_of L u))"
      proof (cases "w \<in> W")
        case True
        then have "u = t" using wu lks lz by simp
        then show ?thesis using True t ht' by (auto simp: W_def)
      next
        case False
        then have old: "rmw_lock s w = Some u" using wu lks lz by simp
        obtain sc' where o: "u \<in> threads P" "held (instrs P u) (pc s u) = Some sc'" "w \<in> wgs_in L sc' (wg_of L u)"
          using lock_invD2[OF inv old] by blast
        have "u \<noteq> t" using o(2) h0 by (auto simp: c_def)
        then show ?thesis using o hu by auto
      qed
    qed
  next
    case (R sc)
    define W where "W = wgs_in L sc (wg_of L t)"
    have h0: "held c (pc s t) = Some sc" using ok R by simp
    have mine: "\<forall>w \<in> W. rmw_lock s w = Some t" and
      lz: "rmw_lock z = (\<lambda>w. if w \<in> W then None else rmw_lock s w)"
      using z R by (auto simp: W_def split: if_splits)
    have ht': "held (instrs P t) (pc s' t) = None" using ht R by simp
    show ?thesis
      unfolding lock_inv_def
    proof (rule conjI; intro ballI allI impI)
      fix u sc' w assume u: "u \<in> threads P" and hu': "held (instrs P u) (pc s' u) = Some sc'"
        and w: "w \<in> wgs_in L sc' (wg_of L u)"
      have ut: "u \<noteq> t" using hu' ht' by auto
      then have hs': "held (instrs P u) (pc s u) = Some sc'" using hu hu' by simp
      have old: "rmw_lock s w = Some u" by (rule lock_invD1[OF inv u hs' w])
      then have "w \<notin> W" using mine ut by auto
      then show "rmw_lock s' w = Some u" using lks lz old by simp
    next
      fix w u assume wu: "rmw_lock s' w = Some u"
      then have nw: "w \<notin> W" and old: "rmw_lock s w = Some u" using lks lz by (auto split: if_splits)
      obtain sc' where o: "u \<in> threads P" "held (instrs P u) (pc s u) = Some sc'" "w \<in> wgs_in L sc' (wg_of L u)"
        using lock_invD2[OF inv old] by blast
      have "u \<noteq> t"
      proof
        assume "u = t"
        then show False using o(2,3) h0 nw by (simp add: W_def c_def)
      qed
      then show "u \<in> threads P \<and> (\<exists>sc'. held (instrs P u) (pc s' u) = Some sc' \<and> w \<in> wgs_in L sc' (wg_of L u))"
        using o hu by auto
    qed
  qed
qed

lemma step_invs:
  assumes "(s, s') \<in> step L wb P" "queued s" "lock_inv L P s" "\<forall>t \<in> threads P. disciplined (instrs P t)"
  shows "queued s' \<and> lock_inv L P s'"
proof -
  have "queued s'"
    using step_queued[OF assms(1,2)] assms(4) disciplined_lockfile_free by blast
  moreover have "lock_inv L P s'"
  proof (cases "s' \<in> env_step L wb s")
    case True
    then have "pc s' = pc s" "rmw_lock s' = rmw_lock s"
      using env_step_regs_pc_locks by blast+
    then show ?thesis using assms(3) lock_inv_cong[of P s' s] by simp
  next
    case False
    then obtain t where "step_thread L P t s = Some s'"
      using assms(1) by (auto simp: step_def)
    then show ?thesis using thread_lock_inv assms(3,4) by blast
  qed
  ultimately show ?thesis by blast
qed

lemma steps_invs:
  assumes "(s, s') \<in> (step L wb P)\<^sup>*" "queued s" "lock_inv L P s" "\<forall>t \<in> threads P. disciplined (instrs P t)"
  shows "queued s' \<and> lock_inv L P s'"
  using assms(1)
proof (induction rule: rtrancl_induct)
  case base
  then show ?case using assms(2,3) by blast
next
  case (step s1 s2)
  then show ?case using step_invs assms(4) by blast
qed

lemma reachable_invs:
  assumes "s \<in> reachable L wb P (initial m)" "\<forall>t \<in> threads P. disciplined (instrs P t)"
  shows "queued s \<and> lock_inv L P s"
  using steps_invs[OF _ queued_initial lock_inv_initial assms(2)] assms(1) by (simp add: reachable_def)

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

lemma fetch_l2_to_readable:
  assumes "queued s" "\<not> dirty (l2 s d x)" "d \<in> devs L"
  shows "\<exists>s1. (s, s1) \<in> (step L wb P)\<^sup>* \<and> readable (l2 s1 d x) \<and> pc s1 = pc s \<and> queued s1
           \<and> l1_fifo s1 = l1_fifo s \<and> l2_fifo s1 = l2_fifo s \<and> l1 s1 = l1 s \<and> lockfile s1 = lockfile s"
proof (cases "readable (l2 s d x)")
  case True
  then show ?thesis using assms(1) by (intro exI[of _ s]) simp
next
  case False
  define s1 where "s1 = set_l2 d x (Some (mem s x, Clean, Valid)) s"
  have "fetch_l2 d x s = Some s1"
    using assms(2) by (auto simp: fetch_l2_def s1_def dirty_iff)
  then have "(s, s1) \<in> step L wb P"
    using assms(3) by (intro env_step_step) (auto simp: env_step_def)
  moreover have "queued s1"
    using assms(1) by (auto simp: queued_def s1_def set_l2_def)
  moreover have "readable (l2 s1 d x)" "pc s1 = pc s" "l1_fifo s1 = l1_fifo s" "l2_fifo s1 = l2_fifo s"
      "l1 s1 = l1 s" "lockfile s1 = lockfile s"
    by (simp_all add: s1_def set_l2_def readable_def)
  ultimately show ?thesis
    by (intro exI[of _ s1]) auto
qed

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
  have l1: "l1 s w x = None \<or> (\<exists>v. l1 s w x = Some (v, Clean, Invalid))"
  proof (cases "l1 s w x")
    case (Some e)
    obtain v hy f where e: "e = (v, hy, f)" by (cases e) auto
    have "hy = Clean" using assms(2) Some e by (cases hy) auto
    moreover have "f = Invalid" using False Some e by (cases f) (auto simp: readable_def)
    ultimately show ?thesis using Some e by simp
  qed simp
  obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "readable (l2 s1 d x)" "pc s1 = pc s" "queued s1"
      "l1_fifo s1 = l1_fifo s" "l2_fifo s1 = l2_fifo s" "l1 s1 = l1 s" "lockfile s1 = lockfile s"
    using fetch_l2_to_readable[OF assms(1) assms(3) assms(5)] unfolding d_def by blast
  define s2 where "s2 = set_l1 w x (Some (val_of (l2 s1 d x), Clean, Valid)) s1"
  have nl: "\<not> locked_out L s1 w x"
    using s1(4) by (simp add: queued_def locked_out_def)
  have cond: "l1 s1 w x = None \<or> l1 s1 w x = Some (val_of (l1 s1 w x), Clean, Invalid)"
    using l1 s1(7) by auto
  have "fetch_l1 L w x s1 = Some s2"
    unfolding fetch_l1_def using cond s1(2) nl by (simp add: s2_def d_def)
  then have "(s1, s2) \<in> step L wb P"
    using assms(4) by (intro env_step_step) (auto simp: env_step_def)
  then have "(s, s2) \<in> (step L wb P)\<^sup>*"
    by (rule rtrancl_into_rtrancl[OF s1(1)])
  moreover have "queued s2"
    using s1(4) by (auto simp: queued_def s2_def set_l1_def)
  moreover have "readable (l1 s2 w x)" "pc s2 = pc s" "l1_fifo s2 = l1_fifo s" "l2_fifo s2 = l2_fifo s"
    using s1(3,5,6) by (simp_all add: s2_def set_l1_def readable_def)
  ultimately show ?thesis
    by (intro exI[of _ s2]) simp
qed

text \<open>From a drained state, a thread whose instruction can execute takes its step.\<close>
lemma step_exec:
  assumes q: "queued s" and dr: "drained L s" and t: "t \<in> threads P" and pc: "pc s t < length (instrs P t)"
    and z: "exec L t (instrs P t ! pc s t) s = Some z" and lf: "lockfile_free (instrs P t ! pc s t)"
    and np: "next_pc t (instrs P t ! pc s t) s = Suc (pc s t)"
  shows "\<exists>s'. (s, s') \<in> step L wb P \<and> queued s' \<and> pc s' = (pc s)(t := Suc (pc s t))"
proof -
  have nf: "\<not> unflushed L s t"
    using dr by (auto simp: unflushed_def drained_def)
  define s' where "s' = set_pc t (Suc (pc s t)) z"
  have "step_thread L P t s = Some s'"
    using z t pc nf np by (simp add: step_thread_def s'_def)
  then have "(s, s') \<in> step L wb P"
    using t by (auto simp: step_def)
  moreover have "queued s'"
    using exec_queued[OF z lf q] by (simp add: s'_def set_pc_def queued_def)
  moreover have "pc s' = (pc s)(t := Suc (pc s t))"
    using exec_pc[OF z] by (simp add: s'_def set_pc_def)
  ultimately show ?thesis by blast
qed

lemma step_one:
  assumes q: "queued s" and dr: "drained L s" and t: "t \<in> threads P" and pc: "pc s t < length (instrs P t)"
    and w: "wg_of L t \<in> wgs L" and d: "dev_of L (wg_of L t) \<in> devs L" and u: "unlocked (instrs P t ! pc s t)"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> pc s' = (pc s)(t := Suc (pc s t))"
proof -
  define i where "i = instrs P t ! pc s t"
  have clean: "\<not> dirty (l1 s (wg_of L t) x)" "\<not> dirty (l2 s (dev_of L (wg_of L t)) x)" for x
    using drained_clean[OF q dr] w d by auto
  have lf: "lockfile_free i" using u by (cases i) (auto simp: i_def)
  have go: "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> pc s' = (pc s)(t := Suc (pc s t))"
    if s2: "(s, s2) \<in> (step L wb P)\<^sup>*" "pc s2 = pc s" "queued s2" "l1_fifo s2 = l1_fifo s" "l2_fifo s2 = l2_fifo s"
      and ex: "exec L t i s2 \<noteq> None" for s2
  proof -
    obtain z where z: "exec L t i s2 = Some z" using ex by auto
    have dr2: "drained L s2" using dr s2(4,5) by (simp add: drained_def)
    have np: "next_pc t i s2 = Suc (pc s2 t)"
      using u s2(2) by (cases i) (auto simp: next_pc_def i_def)
    obtain s' where "(s2, s') \<in> step L wb P" "queued s'" "pc s' = (pc s2)(t := Suc (pc s2 t))"
      using step_exec[OF s2(3) dr2 t] pc s2(2) z lf np unfolding i_def by auto
    then show ?thesis
      using s2(1,2) by (auto intro: rtrancl_into_rtrancl)
  qed
  consider (R) r x where "i = LD r x \<or> i = INCL1 r x" | (R2) r x where "i = INCL2 r x" | (S) v x where "i = ST v x"
    | (O) "\<forall>r x. i \<noteq> LD r x \<and> i \<noteq> INCL1 r x \<and> i \<noteq> INCL2 r x" "\<forall>v x. i \<noteq> ST v x"
    by blast
  then show ?thesis
  proof cases
    case (R r x)
    obtain s2 where h: "(s, s2) \<in> (step L wb P)\<^sup>*" "readable (l1 s2 (wg_of L t) x)" "pc s2 = pc s" "queued s2"
        "l1_fifo s2 = l1_fifo s" "l2_fifo s2 = l2_fifo s"
      using fetch_to_readable[OF q clean w d] by blast
    have "exec L t i s2 \<noteq> None"
      using h(2) R by (auto simp: Let_def)
    then show ?thesis by (rule go[OF h(1) h(3) h(4) h(5) h(6)])
  next
    case (R2 r x)
    obtain s2 where h: "(s, s2) \<in> (step L wb P)\<^sup>*" "readable (l2 s2 (dev_of L (wg_of L t)) x)" "pc s2 = pc s" "queued s2"
        "l1_fifo s2 = l1_fifo s" "l2_fifo s2 = l2_fifo s"
      using fetch_l2_to_readable[OF q clean(2) d] by blast
    have "exec L t i s2 \<noteq> None"
      using h(2) R2 by (auto simp: Let_def)
    then show ?thesis by (rule go[OF h(1) h(3) h(4) h(5) h(6)])
  next
    case (S v x)
    have "l1 s (wg_of L t) x \<noteq> Some (val_of (l1 s (wg_of L t) x), Dirty, Invalid)"
    proof
      assume e: "l1 s (wg_of L t) x = Some (val_of (l1 s (wg_of L t) x), Dirty, Invalid)"
      have "dirty (Some (val_of (l1 s (wg_of L t) x), Dirty, Invalid))" by simp
      then show False using clean(1)[of x] e by metis
    qed
    then have "exec L t i s \<noteq> None"
      using S by (simp add: Let_def)
    then show ?thesis by (rule go[OF rtrancl_refl refl q refl refl])
  next
    case O
    then have "exec L t i s \<noteq> None"
      using u by (cases i) (auto simp: i_def)
    then show ?thesis by (rule go[OF rtrancl_refl refl q refl refl])
  qed
qed

text \<open>A thread inside a bracket runs to its UNLKrmw (no other lock
  instruction comes first), the other threads standing still.\<close>
lemma release_one:
  assumes ok: "progress_ok L P" and t: "t \<in> threads P"
  shows "queued s \<Longrightarrow> lock_inv L P s \<Longrightarrow>
    \<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> lock_inv L P s' \<and> held (instrs P t) (pc s' t) = None
      \<and> pc s t \<le> pc s' t \<and> (\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u)"
proof (induction "length (instrs P t) - pc s t" arbitrary: s)
  case 0
  have "held (instrs P t) (pc s t) = None"
    using 0 ok t held_end by (simp add: progress_ok_def)
  then show ?case using 0 by (intro exI[of _ s]) simp
next
  case (Suc n)
  have dis: "\<forall>u \<in> threads P. disciplined (instrs P u)"
    using ok by (simp add: progress_ok_def)
  show ?case
  proof (cases "held (instrs P t) (pc s t)")
    case None
    then show ?thesis using Suc.prems by (intro exI[of _ s]) simp
  next
    case (Some sc)
    have pc: "pc s t < length (instrs P t)" using Suc.hyps(2) by simp
    obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "drained L s1" "pc s1 = pc s"
      using drain[OF ok Suc.prems(1)] by blast
    have li1: "lock_inv L P s1" using steps_invs[OF s1(1) Suc.prems dis] by blast
    define i where "i = instrs P t ! pc s t"
    have lk: "lock_ok (Some sc) i"
      using disciplined_at dis t pc Some by (fastforce simp: i_def)
    have w: "wg_of L t \<in> wgs L" and d: "dev_of L (wg_of L t) \<in> devs L"
      using ok t by (auto simp: progress_ok_def)
    obtain s2 where s2: "(s1, s2) \<in> (step L wb P)\<^sup>*" "queued s2" "pc s2 = (pc s1)(t := Suc (pc s1 t))"
    proof -
      consider (U) "unlocked i" | (R) "i = UNLKrmw sc" using lk by (cases i) auto
      then show ?thesis
      proof cases
        case U
        then show ?thesis using step_one[OF s1(2,3) t] pc s1(4) w d that unfolding i_def by auto
      next
        case R
        have mine: "\<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s1 w = Some t"
          using lock_invD1[OF li1 t] Some s1(4) by simp
        then obtain z where "exec L t i s1 = Some z" using R by simp
        moreover have "lockfile_free i" "next_pc t i s1 = Suc (pc s1 t)"
          using R by (simp_all add: next_pc_def)
        ultimately obtain s' where "(s1, s') \<in> step L wb P" "queued s'" "pc s' = (pc s1)(t := Suc (pc s1 t))"
          using step_exec[OF s1(2,3) t] pc s1(4) unfolding i_def by auto
        then show ?thesis using that by blast
      qed
    qed
    have ss2: "(s, s2) \<in> (step L wb P)\<^sup>*" using s1(1) s2(1) by (rule rtrancl_trans)
    have li2: "lock_inv L P s2" using steps_invs[OF ss2 Suc.prems dis] by blast
    have "n = length (instrs P t) - pc s2 t" using Suc.hyps(2) s2(3) s1(4) by simp
    then obtain s' where s': "(s2, s') \<in> (step L wb P)\<^sup>*" "queued s'" "lock_inv L P s'"
        "held (instrs P t) (pc s' t) = None" "pc s2 t \<le> pc s' t" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s2 u"
      using Suc.hyps(1) s2(2) li2 by blast
    have "(s, s') \<in> (step L wb P)\<^sup>*" using ss2 s'(1) by (rule rtrancl_trans)
    then show ?thesis using s' s2(3) s1(4) by auto
  qed
qed

lemma release_all:
  assumes ok: "progress_ok L P" and "finite T" "T \<subseteq> threads P"
  shows "queued s \<Longrightarrow> lock_inv L P s \<Longrightarrow>
    \<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> lock_inv L P s' \<and> (\<forall>t \<in> T. held (instrs P t) (pc s' t) = None)"
  using assms(2,3)
proof (induction T arbitrary: s rule: finite_induct)
  case empty
  then show ?case by blast
next
  case (insert t T)
  then obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "lock_inv L P s1"
      "\<forall>u \<in> T. held (instrs P u) (pc s1 u) = None"
    by blast
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "lock_inv L P s'"
      "held (instrs P t) (pc s' t) = None" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s1 u"
    using release_one[OF ok _ s1(2,3)] insert.prems by blast
  have "held (instrs P u) (pc s' u) = None" if "u \<in> insert t T" for u
  proof (cases "u = t")
    case True
    then show ?thesis using s'(4) by simp
  next
    case False
    then show ?thesis using that s'(5) s1(4) by auto
  qed
  moreover have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s1(1) s'(1) by (rule rtrancl_trans)
  ultimately show ?case using s'(2,3) by blast
qed

text \<open>Outside every bracket, no rmw lock is held.\<close>
definition outside :: "program \<Rightarrow> state \<Rightarrow> bool" where
  "outside P s \<longleftrightarrow> (\<forall>t \<in> threads P. held (instrs P t) (pc s t) = None)"

lemma outside_after:
  "outside P s \<Longrightarrow> held (instrs P t) (pc s' t) = None \<Longrightarrow> \<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u \<Longrightarrow> outside P s'"
  unfolding outside_def by metis

lemma outside_free:
  assumes "lock_inv L P s" "outside P s"
  shows "rmw_lock s w = None"
proof (rule ccontr)
  assume "rmw_lock s w \<noteq> None"
  then obtain t where "rmw_lock s w = Some t" by auto
  then show False using lock_invD2[OF assms(1)] assms(2) by (fastforce simp: outside_def)
qed

lemma finish_thread:
  assumes ok: "progress_ok L P" and t: "t \<in> threads P"
  shows "queued s \<Longrightarrow> lock_inv L P s \<Longrightarrow> outside P s \<Longrightarrow>
    \<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> lock_inv L P s' \<and> outside P s'
      \<and> length (instrs P t) \<le> pc s' t \<and> (\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s u)"
proof (induction "length (instrs P t) - pc s t" arbitrary: s rule: less_induct)
  case less
  have dis: "\<forall>u \<in> threads P. disciplined (instrs P u)"
    using ok by (simp add: progress_ok_def)
  show ?case
  proof (cases "length (instrs P t) \<le> pc s t")
    case True
    then show ?thesis using less.prems by (intro exI[of _ s]) simp
  next
    case False
    then have pc: "pc s t < length (instrs P t)" by simp
    obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "drained L s1" "pc s1 = pc s"
      using drain[OF ok less.prems(1)] by blast
    have li1: "lock_inv L P s1" using steps_invs[OF s1(1) less.prems(1,2) dis] by blast
    have out1: "outside P s1" using less.prems(3) s1(4) by (simp add: outside_def)
    define i where "i = instrs P t ! pc s t"
    have h0: "held (instrs P t) (pc s t) = None" using less.prems(3) t by (simp add: outside_def)
    have lk: "lock_ok None i"
      using disciplined_at dis t pc h0 by (fastforce simp: i_def)
    have w: "wg_of L t \<in> wgs L" and d: "dev_of L (wg_of L t) \<in> devs L"
      using ok t by (auto simp: progress_ok_def)
    obtain s3 where s3: "(s1, s3) \<in> (step L wb P)\<^sup>*" "queued s3" "lock_inv L P s3" "outside P s3"
        "pc s t < pc s3 t" "\<forall>u. u \<noteq> t \<longrightarrow> pc s3 u = pc s u"
    proof -
      consider (U) "unlocked i" | (K) sc where "i = LKrmw sc" using lk by (cases i) auto
      then show ?thesis
      proof cases
        case U
        obtain s2 where s2: "(s1, s2) \<in> (step L wb P)\<^sup>*" "queued s2" "pc s2 = (pc s1)(t := Suc (pc s1 t))"
          using step_one[OF s1(2,3) t] pc s1(4) w d U unfolding i_def by auto
        have li2: "lock_inv L P s2" using steps_invs[OF s2(1) s1(2) li1 dis] by blast
        have "held (instrs P t) (pc s2 t) = None"
          using s2(3) s1(4) held_Suc[OF pc] h0 hold_unlocked[OF U] by (simp add: i_def)
        moreover have "\<forall>u. u \<noteq> t \<longrightarrow> pc s2 u = pc s u" using s2(3) s1(4) by simp
        ultimately have "outside P s2" using outside_after[OF less.prems(3)] by blast
        then show ?thesis using that[OF s2(1,2) li2] s2(3) s1(4) by simp
      next
        case (K sc)
        have "rmw_lock s1 w = None" for w using outside_free[OF li1 out1] .
        then obtain z where "exec L t i s1 = Some z" using K by simp
        moreover have "lockfile_free i" "next_pc t i s1 = Suc (pc s1 t)"
          using K by (simp_all add: next_pc_def)
        ultimately obtain s2 where s2: "(s1, s2) \<in> step L wb P" "queued s2" "pc s2 = (pc s1)(t := Suc (pc s1 t))"
          using step_exec[OF s1(2,3) t] pc s1(4) unfolding i_def by auto
        have li2: "lock_inv L P s2" using step_invs[OF s2(1) s1(2) li1 dis] by blast
        obtain s3 where s3: "(s2, s3) \<in> (step L wb P)\<^sup>*" "queued s3" "lock_inv L P s3"
            "held (instrs P t) (pc s3 t) = None" "pc s2 t \<le> pc s3 t" "\<forall>u. u \<noteq> t \<longrightarrow> pc s3 u = pc s2 u"
          using release_one[OF ok t s2(2) li2] by blast
        have "(s1, s3) \<in> (step L wb P)\<^sup>*" using s2(1) s3(1) by (rule converse_rtrancl_into_rtrancl)
        moreover have o6: "\<forall>u. u \<noteq> t \<longrightarrow> pc s3 u = pc s u" using s3(6) s2(3) s1(4) by simp
        moreover have "outside P s3" using outside_after[OF less.prems(3) s3(4) o6] .
        moreover have "pc s t < pc s3 t" using s3(5) s2(3) s1(4) by simp
        ultimately show ?thesis using that s3(2,3) by blast
      qed
    qed
    have ss3: "(s, s3) \<in> (step L wb P)\<^sup>*" using s1(1) s3(1) by (rule rtrancl_trans)
    have "length (instrs P t) - pc s3 t < length (instrs P t) - pc s t" using s3(5) pc by simp
    then obtain s' where s': "(s3, s') \<in> (step L wb P)\<^sup>*" "queued s'" "lock_inv L P s'" "outside P s'"
        "length (instrs P t) \<le> pc s' t" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s3 u"
      using less.hyps s3(2,3,4) by blast
    have "(s, s') \<in> (step L wb P)\<^sup>*" using ss3 s'(1) by (rule rtrancl_trans)
    then show ?thesis using s' s3(6) by auto
  qed
qed

lemma finish_threads:
  assumes "finite T" "T \<subseteq> threads P" "progress_ok L P"
  shows "queued s \<Longrightarrow> lock_inv L P s \<Longrightarrow> outside P s \<Longrightarrow>
    \<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> queued s' \<and> lock_inv L P s' \<and> outside P s'
      \<and> (\<forall>t \<in> T. length (instrs P t) \<le> pc s' t)"
  using assms(1,2)
proof (induction T arbitrary: s rule: finite_induct)
  case empty
  then show ?case by blast
next
  case (insert t T)
  then obtain s1 where s1: "(s, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "lock_inv L P s1" "outside P s1"
      "\<forall>u \<in> T. length (instrs P u) \<le> pc s1 u"
    by blast
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "lock_inv L P s'" "outside P s'"
      "length (instrs P t) \<le> pc s' t" "\<forall>u. u \<noteq> t \<longrightarrow> pc s' u = pc s1 u"
    using finish_thread[OF assms(3) _ s1(2,3,4)] insert.prems by blast
  have "\<forall>u \<in> insert t T. length (instrs P u) \<le> pc s' u"
    using s'(5,6) s1(5) insert.hyps(2) by auto
  moreover have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s1(1) s'(1) by (rule rtrancl_trans)
  ultimately show ?case using s'(2,3,4) by blast
qed

theorem progress:
  assumes ok: "progress_ok L P" and "queued s" "lock_inv L P s"
  shows "\<exists>s'. (s, s') \<in> (step L wb P)\<^sup>* \<and> is_final L P s'"
proof -
  have fin: "finite (threads P)" using ok by (simp add: progress_ok_def)
  obtain s0 where s0: "(s, s0) \<in> (step L wb P)\<^sup>*" "queued s0" "lock_inv L P s0"
      "\<forall>t \<in> threads P. held (instrs P t) (pc s0 t) = None"
    using release_all[where wb = wb, OF ok fin subset_refl assms(2,3)] by blast
  obtain s1 where s1: "(s0, s1) \<in> (step L wb P)\<^sup>*" "queued s1" "\<forall>t \<in> threads P. length (instrs P t) \<le> pc s1 t"
    using finish_threads[where wb = wb, OF fin subset_refl ok s0(2,3)] s0(4) by (auto simp: outside_def)
  obtain s' where s': "(s1, s') \<in> (step L wb P)\<^sup>*" "queued s'" "drained L s'" "pc s' = pc s1"
    using drain[OF ok s1(2)] by blast
  have "is_final L P s'"
    using s1(3) s'(3,4) drained_clean[OF s'(2,3)] by (auto simp: is_final_def drained_def)
  moreover have "(s, s') \<in> (step L wb P)\<^sup>*"
    using s0(1) s1(1) s'(1) by (meson rtrancl_trans)
  ultimately show ?thesis by blast
qed

theorem disciplined_deadlock_free:
  assumes "progress_ok L P"
  shows "deadlock_free L wb P (initial m)"
  unfolding deadlock_free_def
proof
  fix s assume "s \<in> reachable L wb P (initial m)"
  then have "queued s \<and> lock_inv L P s"
    using reachable_invs assms by (auto simp: progress_ok_def)
  then obtain s' where "(s, s') \<in> (step L wb P)\<^sup>*" "is_final L P s'"
    using progress[OF assms] by blast
  then show "\<exists>s' \<in> reachable L wb P s. is_final L P s'"
    by (auto simp: reachable_def)
qed

section \<open>Soundness for the class\<close>

text \<open>Every row of the scheme keeps the lock discipline: a compiled
  program is then straight-line and keeps it too.\<close>
definition disciplined_scheme :: "scheme \<Rightarrow> bool" where
  "disciplined_scheme S \<longleftrightarrow> (\<forall>a rw r x. S a = Some rw \<longrightarrow> disciplined (rw r x))"

lemma disciplined_map_of:
  assumes "\<forall>(a, rw) \<in> set xs. \<forall>r x. disc None (rw r x)"
  shows "disciplined_scheme (map_of xs)"
  unfolding disciplined_scheme_def disciplined_def
proof (intro allI impI)
  fix a rw r x assume "map_of xs a = Some rw"
  then have "(a, rw) \<in> set xs" by (rule map_of_SomeD)
  then show "disc None (rw r x)" using assms by fastforce
qed

lemma compile_progress_ok:
  assumes "disciplined_scheme S" "compilable S P" "well_placed L P"
  shows "progress_ok L (compile S P)"
proof -
  have "disciplined (compile_instr S c)" if t: "t \<in> src_threads P" and c: "c \<in> set (src_code P t)" for t c
  proof (cases c)
    case (Op a r x)
    have "op_of c \<subseteq> ops_of P" using t c by (auto simp: ops_of_def)
    then have "a \<in> ops_of P" using Op by (simp add: op_of_def)
    then obtain rw where "S a = Some rw" using assms(2) by (auto simp: compilable_def)
    then show ?thesis using assms(1) Op by (simp add: compile_instr_def disciplined_scheme_def)
  next
    case (SetReg r v)
    then show ?thesis by (simp add: compile_instr_def disciplined_def)
  qed
  then have "disciplined (instrs (compile S P) t)" if "t \<in> src_threads P" for t
    using that by (auto simp: compile_def intro!: disciplined_concat)
  then show ?thesis
    using assms(3) by (simp add: progress_ok_def well_placed_def compile_def)
qed

text \<open>Deadlock freedom, half of Hrf_Mapping's `sound S`, for every program
  a disciplined scheme compiles, on every layout, under both policies.\<close>
theorem scheme_deadlock_free:
  assumes "disciplined_scheme S" "compilable S P" "well_placed L P"
  shows "deadlock_free L wb (compile S P) (initial (src_init P))"
  using disciplined_deadlock_free[OF compile_progress_ok[OF assms]] .

context source_model
begin

text \<open>For a disciplined scheme, what is left of the goal `sound S` is its
  outcome part: the compiled race-free programs show only allowed outcomes.\<close>
theorem sound_iff_outcomes:
  assumes "disciplined_scheme S"
  shows "sound S \<longleftrightarrow> (\<forall>L wb P. well_placed L P \<and> compilable S P \<and> \<not> racy L P
           \<longrightarrow> outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> allowed L P)"
  unfolding sound_def sound_on_def using scheme_deadlock_free[OF assms] by blast

end

context sc_source_model
begin

text \<open>Hrf_Mapping's `sound_on`, outcomes and deadlock freedom, for every
  program of the class on every layout that places it, under either
  write-back policy: the first infinite class of programs on which a
  scheme is proved sound against the source model.\<close>
theorem homed_sound_on:
  assumes "l1_rows S A" "disciplined_scheme S" "ops_of P \<subseteq> A" "homed L h P"
    and "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L" "well_placed L P"
  shows "sound_on L wb S P"
proof -
  have "compilable S P"
    using assms(1,3) by (auto simp: compilable_def l1_rows_def)
  then show ?thesis
    unfolding sound_on_def
    using homed_outcomes_allowed[OF assms(1) assms(3) assms(4) assms(5)]
      scheme_deadlock_free[OF assms(2) _ assms(6)]
    by blast
qed

text \<open>The same for the class with locations homed in a device and
  incremented at its L2 (rsp-new's device and remote RMWs).\<close>
theorem homed_l2_sound_on:
  assumes "l1_rows S A" "l2_rows S B" "disciplined_scheme S" "ops_of P \<subseteq> A \<union> B"
    and "homed_l2 L h Z R B P" "\<forall>x. h x \<in> wgs L \<and> dev_of L (h x) \<in> devs L" "well_placed L P"
  shows "sound_on L wb S P"
proof -
  have "compilable S P"
    using assms(1,2,4) by (fastforce simp: compilable_def l1_rows_def l2_rows_def)
  then show ?thesis
    unfolding sound_on_def
    using homed_l2_outcomes_allowed[OF assms(1) assms(2) assms(4) assms(5) assms(6)]
      scheme_deadlock_free[OF assms(3) _ assms(7)]
    by blast
qed

end

end
