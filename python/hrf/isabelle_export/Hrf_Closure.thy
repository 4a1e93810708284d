(* hrf base theory: every outcome of the machine of Hrf_Machine, as a finite
   fact. The reachable states of a program are infinitely many (an
   environment step may fetch any address), but what a step of the program
   can observe is a finite part of the state: the lines, locks, fifos and
   memory at the program's addresses, the registers its expressions read,
   and the pcs. `enc` takes that part as data that evaluation can compare
   (lists), `conc` makes a state of it again, and two states with the same
   part (`agree`) take the same labelled steps to states that again agree
   (`label_cong`). So a set of encoded states that holds the initial state's
   and is closed under the steps of its members (`closed`, decided by eval)
   holds the encoding of every reachable state (`reachable_in_closed`); if
   every final state in it shows an outcome of a given list, the machine
   has no other outcome (`machine_outcomes_within`). The set is computed by
   evaluation too (`explore`, a search whose result is checked, not
   trusted). It also counts the states that are not final, which hrf's
   unreduced explorer counts too: two implementations of the machine agree
   on that number. (The final ones differ: hrf does not step on from a
   final state, where a fetch or an eviction gives another final state with
   the same outcome.) *)
theory Hrf_Closure
  imports Hrf_Machine
begin

section \<open>Registers an instruction reads\<close>

fun expr_regs :: "expr \<Rightarrow> reg set" where
  "expr_regs (EC v) = {}"
| "expr_regs (ER r) = {r}"
| "expr_regs (ENot a) = expr_regs a"
| "expr_regs (ENeg a) = expr_regs a"
| "expr_regs (EBin f a b) = expr_regs a \<union> expr_regs b"

lemma eval_expr_cong: "(\<forall>r \<in> expr_regs e. f r = g r) \<Longrightarrow> eval_expr f e = eval_expr g e"
  by (induction e) auto

fun instr_reads :: "instr \<Rightarrow> reg set" where
  "instr_reads (ST v x) = expr_regs v"
| "instr_reads (MOV r v) = expr_regs v"
| "instr_reads (BNZ v n) = expr_regs v"
| "instr_reads _ = {}"

section \<open>The finite part of a state\<close>

text \<open>The threads, registers, work-groups, devices and addresses a
  program's steps can observe, as lists.\<close>
record dom =
  d_threads :: "tid list"
  d_regs :: "reg list"
  d_wgs :: "wid list"
  d_devs :: "did list"
  d_addrs :: "addr list"

definition dom_ok :: "dom \<Rightarrow> layout \<Rightarrow> program \<Rightarrow> bool" where
  "dom_ok D L P \<longleftrightarrow>
     set (d_threads D) = threads P \<and> set (d_wgs D) = wgs L \<and> set (d_devs D) = devs L
     \<and> set (d_addrs D) = addrs P
     \<and> (\<forall>t \<in> threads P. wg_of L t \<in> wgs L \<and> (\<forall>i \<in> set (instrs P t). instr_reads i \<subseteq> set (d_regs D)))
     \<and> (\<forall>w \<in> wgs L. dev_of L w \<in> devs L)"

type_synonym astate =
  "int list \<times> entry option list list \<times> fifo_el list list \<times> tid option list list
   \<times> entry option list list \<times> fifo_el list list \<times> tid option list \<times> int list list \<times> nat list"

definition enc :: "dom \<Rightarrow> state \<Rightarrow> astate" where
  "enc D s =
     (map (mem s) (d_addrs D),
      map (\<lambda>d. map (l2 s d) (d_addrs D)) (d_devs D),
      map (l2_fifo s) (d_devs D),
      map (\<lambda>d. map (lockfile s d) (d_addrs D)) (d_devs D),
      map (\<lambda>w. map (l1 s w) (d_addrs D)) (d_wgs D),
      map (l1_fifo s) (d_wgs D),
      map (rmw_lock s) (d_wgs D),
      map (\<lambda>t. map (regs s t) (d_regs D)) (d_threads D),
      map (pc s) (d_threads D))"

definition look :: "'a list \<Rightarrow> 'b list \<Rightarrow> 'b \<Rightarrow> 'a \<Rightarrow> 'b" where
  "look ks vs z k = (case map_of (zip ks vs) k of Some v \<Rightarrow> v | None \<Rightarrow> z)"

lemma look_map: "k \<in> set ks \<Longrightarrow> look ks (map f ks) z k = f k"
  by (induction ks) (auto simp: look_def)

lemma look_notin: "k \<notin> set ks \<Longrightarrow> look ks vs z k = z"
proof (induction ks arbitrary: vs)
  case Nil
  then show ?case by (simp add: look_def)
next
  case (Cons k' ks)
  then show ?case by (cases vs) (auto simp: look_def)
qed

text \<open>A state with the given finite part; lines, locks and fifos elsewhere
  are absent or empty.\<close>
definition conc :: "dom \<Rightarrow> astate \<Rightarrow> state" where
  "conc D a = (case a of (am, al2, af2, alk, al1, af1, arl, ars, apc) \<Rightarrow>
     \<lparr>mem = look (d_addrs D) am 0,
      l2 = (\<lambda>d. look (d_addrs D) (look (d_devs D) al2 [] d) None),
      l2_fifo = look (d_devs D) af2 [],
      lockfile = (\<lambda>d. look (d_addrs D) (look (d_devs D) alk [] d) None),
      l1 = (\<lambda>w. look (d_addrs D) (look (d_wgs D) al1 [] w) None),
      l1_fifo = look (d_wgs D) af1 [],
      rmw_lock = look (d_wgs D) arl None,
      regs = (\<lambda>t. look (d_regs D) (look (d_threads D) ars [] t) 0),
      pc = look (d_threads D) apc 0\<rparr>)"

definition agree :: "dom \<Rightarrow> state \<Rightarrow> state \<Rightarrow> bool" where
  "agree D s1 s2 \<longleftrightarrow> enc D s1 = enc D s2"

lemma agree_iff0:
  "agree D s1 s2 \<longleftrightarrow>
     (\<forall>x \<in> set (d_addrs D). mem s1 x = mem s2 x)
   \<and> (\<forall>d \<in> set (d_devs D). l2_fifo s1 d = l2_fifo s2 d
        \<and> (\<forall>x \<in> set (d_addrs D). l2 s1 d x = l2 s2 d x \<and> lockfile s1 d x = lockfile s2 d x))
   \<and> (\<forall>w \<in> set (d_wgs D). l1_fifo s1 w = l1_fifo s2 w \<and> rmw_lock s1 w = rmw_lock s2 w
        \<and> (\<forall>x \<in> set (d_addrs D). l1 s1 w x = l1 s2 w x))
   \<and> (\<forall>t \<in> set (d_threads D). pc s1 t = pc s2 t \<and> (\<forall>r \<in> set (d_regs D). regs s1 t r = regs s2 t r))"
  unfolding agree_def enc_def by (auto simp: map_eq_conv)

lemma agree_iff:
  assumes "dom_ok D L P"
  shows "agree D s1 s2 \<longleftrightarrow>
     (\<forall>x \<in> addrs P. mem s1 x = mem s2 x)
   \<and> (\<forall>d \<in> devs L. l2_fifo s1 d = l2_fifo s2 d
        \<and> (\<forall>x \<in> addrs P. l2 s1 d x = l2 s2 d x \<and> lockfile s1 d x = lockfile s2 d x))
   \<and> (\<forall>w \<in> wgs L. l1_fifo s1 w = l1_fifo s2 w \<and> rmw_lock s1 w = rmw_lock s2 w
        \<and> (\<forall>x \<in> addrs P. l1 s1 w x = l1 s2 w x))
   \<and> (\<forall>t \<in> threads P. pc s1 t = pc s2 t \<and> (\<forall>r \<in> set (d_regs D). regs s1 t r = regs s2 t r))"
  using assms unfolding agree_iff0 dom_ok_def by simp

lemma agree_conc: "agree D s (conc D (enc D s))"
  by (simp add: agree_iff0 conc_def enc_def look_map)

lemma conc_clean: "dom_ok D L P \<Longrightarrow> clean_outside (addrs P) (conc D a)"
  by (auto simp: clean_outside_def conc_def dom_ok_def look_notin split: prod.splits)

section \<open>Agreeing states take the same steps\<close>

lemma agree_updates:
  assumes "agree D s1 s2"
  shows "agree D (set_l1 w x e s1) (set_l1 w x e s2)" "agree D (set_l2 d x e s1) (set_l2 d x e s2)"
    "agree D (enq_l1 w f s1) (enq_l1 w f s2)" "agree D (enq_l2 d f s1) (enq_l2 d f s2)"
    "agree D (set_reg t r v s1) (set_reg t r v s2)" "agree D (set_pc t n s1) (set_pc t n s2)"
  using assms
  by (auto simp: agree_iff0 set_l1_def set_l2_def enq_l1_def enq_l2_def set_reg_def set_pc_def)

lemma wgs_in_sub: "wg_of L t \<in> wgs L \<Longrightarrow> wgs_in L sc (wg_of L t) \<subseteq> wgs L"
  by (cases sc) (auto simp: wgs_in_def)

lemma devs_in_sub: "d \<in> devs L \<Longrightarrow> devs_in L sc d \<subseteq> devs L"
  by (cases sc) (auto simp: devs_in_def)

lemma instr_in_program:
  assumes "dom_ok D L P" "t \<in> threads P" "i \<in> set (instrs P t)"
  shows "instr_addrs i \<subseteq> addrs P" "instr_reads i \<subseteq> set (d_regs D)"
    "wg_of L t \<in> wgs L" "dev_of L (wg_of L t) \<in> devs L"
  using assms unfolding dom_ok_def addrs_def by blast+

lemma exec_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and t: "t \<in> threads P" and i: "i \<in> set (instrs P t)"
  shows "rel_option (agree D) (exec L t i s1) (exec L t i s2)"
proof -
  note inp = instr_in_program[OF ok t i]
  have rs: "\<forall>r \<in> set (d_regs D). regs s1 t r = regs s2 t r"
    using ag t ok unfolding agree_iff[OF ok] by blast
  have ev: "expr_regs e \<subseteq> set (d_regs D) \<Longrightarrow> eval_expr (regs s1 t) e = eval_expr (regs s2 t) e" for e
    using rs by (intro eval_expr_cong) blast
  have wsub: "wgs_in L sc (wg_of L t) \<subseteq> wgs L" for sc
    using wgs_in_sub[OF inp(3)] .
  have dsub: "devs_in L sc (dev_of L (wg_of L t)) \<subseteq> devs L" for sc
    using devs_in_sub[OF inp(4)] .
  note A = ag[unfolded agree_iff[OF ok]]
  show ?thesis
  proof (cases i)
    case (LD r x)
    then have "x \<in> addrs P" using inp by simp
    then have "l1 s1 (wg_of L t) x = l1 s2 (wg_of L t) x" using A inp by blast
    then show ?thesis using LD agree_updates[OF ag] by (simp add: Let_def)
  next
    case (ST v x)
    then have "x \<in> addrs P" "expr_regs v \<subseteq> set (d_regs D)" using inp by simp_all
    then have "l1 s1 (wg_of L t) x = l1 s2 (wg_of L t) x" "eval_expr (regs s1 t) v = eval_expr (regs s2 t) v"
      using A inp ev by blast+
    then show ?thesis using ST agree_updates by (simp add: Let_def ag)
  next
    case (INCL1 r x)
    then have "x \<in> addrs P" using inp by simp
    then have "l1 s1 (wg_of L t) x = l1 s2 (wg_of L t) x" using A inp by blast
    then show ?thesis using INCL1 agree_updates by (simp add: Let_def ag)
  next
    case (INCL2 r x)
    then have "x \<in> addrs P" using inp by simp
    then have "l2 s1 (dev_of L (wg_of L t)) x = l2 s2 (dev_of L (wg_of L t)) x" using A inp by blast
    then show ?thesis using INCL2 agree_updates by (simp add: Let_def ag)
  next
    case (FLUL1 sc)
    then show ?thesis using A by (simp add: agree_iff[OF ok])
  next
    case (FLUL2 sc)
    then show ?thesis using A by (simp add: agree_iff[OF ok])
  next
    case (INVL1 sc)
    then show ?thesis using A by (simp add: agree_iff[OF ok])
  next
    case (INVL2 sc)
    then show ?thesis using A by (simp add: agree_iff[OF ok])
  next
    case (LK x)
    then have "x \<in> addrs P" using inp by simp
    then have "lockfile s1 (dev_of L (wg_of L t)) x = lockfile s2 (dev_of L (wg_of L t)) x" using A inp by blast
    then show ?thesis using LK A \<open>x \<in> addrs P\<close> inp by (simp add: Let_def agree_iff[OF ok])
  next
    case (UNLK x)
    then have "x \<in> addrs P" using inp by simp
    then have "lockfile s1 (dev_of L (wg_of L t)) x = lockfile s2 (dev_of L (wg_of L t)) x" using A inp by blast
    then show ?thesis using UNLK A \<open>x \<in> addrs P\<close> inp by (simp add: Let_def agree_iff[OF ok])
  next
    case (LKrmw sc)
    have "\<forall>w \<in> wgs L. rmw_lock s1 w = rmw_lock s2 w" using A by blast
    then have eq: "w \<in> wgs_in L sc (wg_of L t) \<Longrightarrow> rmw_lock s1 w = rmw_lock s2 w" for w
      using wsub[of sc] by blast
    then have "(\<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s1 w = None) \<longleftrightarrow> (\<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s2 w = None)"
      by auto
    then show ?thesis using LKrmw A eq by (auto simp: agree_iff[OF ok])
  next
    case (UNLKrmw sc)
    have "\<forall>w \<in> wgs L. rmw_lock s1 w = rmw_lock s2 w" using A by blast
    then have eq: "w \<in> wgs_in L sc (wg_of L t) \<Longrightarrow> rmw_lock s1 w = rmw_lock s2 w" for w
      using wsub[of sc] by blast
    then have "(\<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s1 w = Some t) \<longleftrightarrow> (\<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s2 w = Some t)"
      by auto
    then show ?thesis using UNLKrmw A eq by (auto simp: agree_iff[OF ok])
  next
    case (MOV r v)
    then have "eval_expr (regs s1 t) v = eval_expr (regs s2 t) v" using inp ev by simp
    then show ?thesis using MOV agree_updates[OF ag] by simp
  qed (simp_all add: ag)
qed

lemma unflushed_cong:
  "dom_ok D L P \<Longrightarrow> agree D s1 s2 \<Longrightarrow> unflushed L s1 t = unflushed L s2 t"
  by (simp add: unflushed_def agree_iff)

lemma step_thread_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2"
  shows "rel_option (agree D) (step_thread L P t s1) (step_thread L P t s2)"
proof (cases "t \<in> threads P")
  case False
  then show ?thesis by (simp add: step_thread_def)
next
  case t: True
  then have pc: "pc s1 t = pc s2 t" using ag unfolding agree_iff[OF ok] by blast
  show ?thesis
  proof (cases "pc s1 t \<ge> length (instrs P t) \<or> unflushed L s1 t")
    case True
    then show ?thesis using pc unflushed_cong[OF ok ag] by (auto simp: step_thread_def)
  next
    case False
    define i where "i = instrs P t ! pc s1 t"
    have i: "i \<in> set (instrs P t)" using False by (simp add: i_def)
    have n: "next_pc t i s1 = next_pc t i s2"
    proof (cases i)
      case (BNZ v n)
      then have "expr_regs v \<subseteq> set (d_regs D)" using instr_in_program(2)[OF ok t i] by simp
      moreover have "\<forall>r \<in> set (d_regs D). regs s1 t r = regs s2 t r" using ag t unfolding agree_iff[OF ok] by blast
      ultimately have "eval_expr (regs s1 t) v = eval_expr (regs s2 t) v" by (intro eval_expr_cong) blast
      then show ?thesis using BNZ pc by (simp add: next_pc_def)
    qed (simp_all add: next_pc_def pc)
    have "rel_option (agree D) (exec L t i s1) (exec L t i s2)" by (rule exec_cong[OF ok ag t i])
    then have "rel_option (agree D) (map_option (set_pc t (next_pc t i s1)) (exec L t i s1))
                                     (map_option (set_pc t (next_pc t i s2)) (exec L t i s2))"
      unfolding n option.rel_map by (rule option.rel_mono_strong) (rule agree_updates(6))
    then show ?thesis using False pc unflushed_cong[OF ok ag] t by (simp add: step_thread_def i_def Let_def)
  qed
qed

lemma locked_out_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and w: "w \<in> wgs L" and x: "x \<in> addrs P"
  shows "locked_out L s1 w x = locked_out L s2 w x"
proof -
  have "dev_of L w \<in> devs L" using ok w by (simp add: dom_ok_def)
  then have "lockfile s1 (dev_of L w) x = lockfile s2 (dev_of L w) x"
    using ag x unfolding agree_iff[OF ok] by blast
  then show ?thesis by (simp add: locked_out_def)
qed

lemma fetch_l1_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and w: "w \<in> wgs L" and x: "x \<in> addrs P"
  shows "rel_option (agree D) (fetch_l1 L w x s1) (fetch_l1 L w x s2)"
proof -
  have d: "dev_of L w \<in> devs L" using ok w by (simp add: dom_ok_def)
  have eqs: "l1 s1 w x = l1 s2 w x" "l2 s1 (dev_of L w) x = l2 s2 (dev_of L w) x"
    "locked_out L s1 w x = locked_out L s2 w x"
    using ag w x d locked_out_cong[OF ok ag w x] unfolding agree_iff[OF ok] by blast+
  define C where "C = ((l1 s2 w x = None \<or> l1 s2 w x = Some (val_of (l1 s2 w x), Clean, Invalid))
      \<and> readable (l2 s2 (dev_of L w) x) \<and> \<not> locked_out L s2 w x)"
  define e where "e = Some (val_of (l2 s2 (dev_of L w) x), Clean, Valid)"
  have "fetch_l1 L w x s1 = (if C then Some (set_l1 w x e s1) else None)"
    "fetch_l1 L w x s2 = (if C then Some (set_l1 w x e s2) else None)"
    by (simp_all only: fetch_l1_def C_def e_def eqs)
  then show ?thesis
    using agree_updates(1)[OF ag] by simp
qed

lemma fetch_l2_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and d: "d \<in> devs L" and x: "x \<in> addrs P"
  shows "rel_option (agree D) (fetch_l2 d x s1) (fetch_l2 d x s2)"
proof -
  have "l2 s1 d x = l2 s2 d x" "mem s1 x = mem s2 x"
    using ag d x unfolding agree_iff[OF ok] by blast+
  then show ?thesis
    using agree_updates(2)[OF ag] by (simp add: fetch_l2_def)
qed

lemma write_back_l1_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and w: "w \<in> wgs L" and x: "x \<in> addrs P"
  shows "agree D (write_back_l1 L w x s1) (write_back_l1 L w x s2)"
proof -
  have "l1 s1 w x = l1 s2 w x" using ag w x unfolding agree_iff[OF ok] by blast
  then show ?thesis
    using ag agree_updates by (auto simp: write_back_l1_def split: option.splits)
qed

lemma write_back_l2_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and d: "d \<in> devs L" and x: "x \<in> addrs P"
  shows "agree D (write_back_l2 d x s1) (write_back_l2 d x s2)"
proof -
  have "l2 s1 d x = l2 s2 d x" using ag d x unfolding agree_iff[OF ok] by blast
  moreover have "agree D (s1\<lparr>mem := (mem s1)(x := v)\<rparr>) (s2\<lparr>mem := (mem s2)(x := v)\<rparr>)" for v
    using ag by (simp add: agree_iff0)
  ultimately show ?thesis
    using ag agree_updates(2) by (auto simp: write_back_l2_def split: option.splits)
qed

lemma dequeue_l1_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and w: "w \<in> wgs L"
    and c1: "clean_outside (addrs P) s1" and c2: "clean_outside (addrs P) s2"
  shows "rel_option (agree D) (dequeue_l1 L w s1) (dequeue_l1 L w s2)"
proof -
  have f: "l1_fifo s1 w = l1_fifo s2 w" using ag w unfolding agree_iff[OF ok] by blast
  define s1' where "s1' = s1\<lparr>l1_fifo := (l1_fifo s1)(w := tl (l1_fifo s1 w))\<rparr>"
  define s2' where "s2' = s2\<lparr>l1_fifo := (l1_fifo s2)(w := tl (l1_fifo s2 w))\<rparr>"
  have ag': "agree D s1' s2'" using ag f by (simp add: s1'_def s2'_def agree_iff0)
  show ?thesis
  proof (cases "l1_fifo s1 w")
    case Nil
    then show ?thesis using f by (simp add: dequeue_l1_def)
  next
    case (Cons e rest)
    then have s1'e: "s1\<lparr>l1_fifo := (l1_fifo s1)(w := rest)\<rparr> = s1'"
          and s2'e: "s2\<lparr>l1_fifo := (l1_fifo s2)(w := rest)\<rparr> = s2'"
      using f by (simp_all add: s1'_def s2'_def)
    show ?thesis
    proof (cases e)
      case (Flush t)
      then show ?thesis using Cons f ag' s1'e s2'e by (simp add: dequeue_l1_def)
    next
      case (Addr x)
      show ?thesis
      proof (cases "x \<in> addrs P")
        case True
        then have "l1 s1 w x = l1 s2 w x" using ag w unfolding agree_iff[OF ok] by blast
        moreover have "locked_out L s1 w x = locked_out L s2 w x" by (rule locked_out_cong[OF ok ag w True])
        moreover have "agree D (write_back_l1 L w x s1') (write_back_l1 L w x s2')"
          by (rule write_back_l1_cong[OF ok ag' w True])
        ultimately show ?thesis using Cons f Addr ag' s1'e s2'e by (simp add: dequeue_l1_def Let_def)
      next
        case False
        then have "\<not> dirty (l1 s1 w x)" "\<not> dirty (l1 s2 w x)" using c1 c2 by (simp_all add: clean_outside_def)
        then show ?thesis using Cons f Addr ag' s1'e s2'e by (simp add: dequeue_l1_def Let_def)
      qed
    qed
  qed
qed

lemma dequeue_l2_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and d: "d \<in> devs L"
    and c1: "clean_outside (addrs P) s1" and c2: "clean_outside (addrs P) s2"
  shows "rel_option (agree D) (dequeue_l2 d s1) (dequeue_l2 d s2)"
proof -
  have f: "l2_fifo s1 d = l2_fifo s2 d" using ag d unfolding agree_iff[OF ok] by blast
  define s1' where "s1' = s1\<lparr>l2_fifo := (l2_fifo s1)(d := tl (l2_fifo s1 d))\<rparr>"
  define s2' where "s2' = s2\<lparr>l2_fifo := (l2_fifo s2)(d := tl (l2_fifo s2 d))\<rparr>"
  have ag': "agree D s1' s2'" using ag f by (simp add: s1'_def s2'_def agree_iff0)
  show ?thesis
  proof (cases "l2_fifo s1 d")
    case Nil
    then show ?thesis using f by (simp add: dequeue_l2_def)
  next
    case (Cons e rest)
    then have s1'e: "s1\<lparr>l2_fifo := (l2_fifo s1)(d := rest)\<rparr> = s1'"
          and s2'e: "s2\<lparr>l2_fifo := (l2_fifo s2)(d := rest)\<rparr> = s2'"
      using f by (simp_all add: s1'_def s2'_def)
    show ?thesis
    proof (cases e)
      case (Flush t)
      then show ?thesis using Cons f ag' s1'e s2'e by (simp add: dequeue_l2_def)
    next
      case (Addr x)
      show ?thesis
      proof (cases "x \<in> addrs P")
        case True
        then have "l2 s1 d x = l2 s2 d x" using ag d unfolding agree_iff[OF ok] by blast
        moreover have "agree D (write_back_l2 d x s1') (write_back_l2 d x s2')"
          by (rule write_back_l2_cong[OF ok ag' d True])
        ultimately show ?thesis using Cons f Addr ag' s1'e s2'e by (simp add: dequeue_l2_def Let_def)
      next
        case False
        then have "\<not> dirty (l2 s1 d x)" "\<not> dirty (l2 s2 d x)" using c1 c2 by (simp_all add: clean_outside_def)
        then show ?thesis using Cons f Addr ag' s1'e s2'e by (simp add: dequeue_l2_def Let_def)
      qed
    qed
  qed
qed

section \<open>The labels of a program's steps\<close>

definition labels :: "dom \<Rightarrow> label list" where
  "labels D =
     map Thread (d_threads D)
     @ concat (map (\<lambda>w. map (FetchL1 w) (d_addrs D) @ map (WritebackL1 w) (d_addrs D) @ map (EvictL1 w) (d_addrs D)) (d_wgs D))
     @ concat (map (\<lambda>d. map (FetchL2 d) (d_addrs D) @ map (WritebackL2 d) (d_addrs D) @ map (EvictL2 d) (d_addrs D)) (d_devs D))
     @ map DequeueL1 (d_wgs D) @ map DequeueL2 (d_devs D)"

lemma label_cong:
  assumes ok: "dom_ok D L P" and ag: "agree D s1 s2" and l: "l \<in> set (labels D)"
    and c1: "clean_outside (addrs P) s1" and c2: "clean_outside (addrs P) s2"
  shows "rel_option (agree D) (label_step L wb P l s1) (label_step L wb P l s2)"
proof -
  have sets: "set (d_threads D) = threads P" "set (d_wgs D) = wgs L" "set (d_devs D) = devs L"
    "set (d_addrs D) = addrs P"
    using ok by (simp_all add: dom_ok_def)
  note A = ag[unfolded agree_iff[OF ok]]
  show ?thesis
  proof (cases l)
    case (Thread t)
    then show ?thesis using step_thread_cong[OF ok ag] by simp
  next
    case (FetchL1 w x)
    then have w: "w \<in> wgs L" and x: "x \<in> addrs P" using l sets by (auto simp: labels_def)
    have e: "l1 s1 w x = l1 s2 w x" using A w x by blast
    have "agree D (set_l1 w x None s1) (set_l1 w x None s2)" by (rule agree_updates(1)[OF ag])
    then have "rel_option (agree D) (fetch_l1 L w x (set_l1 w x None s1)) (fetch_l1 L w x (set_l1 w x None s2))"
      by (rule fetch_l1_cong[OF ok _ w x])
    then show ?thesis using FetchL1 w e fetch_l1_cong[OF ok ag w x] by simp
  next
    case (FetchL2 d x)
    then have d: "d \<in> devs L" and x: "x \<in> addrs P" using l sets by (auto simp: labels_def)
    then show ?thesis using FetchL2 fetch_l2_cong[OF ok ag d x] by simp
  next
    case (DequeueL1 w)
    then have w: "w \<in> wgs L" using l sets by (auto simp: labels_def)
    then show ?thesis using DequeueL1 dequeue_l1_cong[OF ok ag w c1 c2] by simp
  next
    case (DequeueL2 d)
    then have d: "d \<in> devs L" using l sets by (auto simp: labels_def)
    then show ?thesis using DequeueL2 dequeue_l2_cong[OF ok ag d c1 c2] by simp
  next
    case (WritebackL1 w x)
    then have w: "w \<in> wgs L" and x: "x \<in> addrs P" using l sets by (auto simp: labels_def)
    have "l1 s1 w x = l1 s2 w x" using A w x by blast
    then show ?thesis
      using WritebackL1 locked_out_cong[OF ok ag w x] write_back_l1_cong[OF ok ag w x] by simp
  next
    case (WritebackL2 d x)
    then have d: "d \<in> devs L" and x: "x \<in> addrs P" using l sets by (auto simp: labels_def)
    have "l2 s1 d x = l2 s2 d x" using A d x by blast
    then show ?thesis using WritebackL2 write_back_l2_cong[OF ok ag d x] by simp
  next
    case (EvictL1 w x)
    then have w: "w \<in> wgs L" and x: "x \<in> addrs P" using l sets by (auto simp: labels_def)
    have "l1 s1 w x = l1 s2 w x" using A w x by blast
    then show ?thesis using EvictL1 agree_updates(1)[OF ag] by simp
  next
    case (EvictL2 d x)
    then have d: "d \<in> devs L" and x: "x \<in> addrs P" using l sets by (auto simp: labels_def)
    have "l2 s1 d x = l2 s2 d x" using A d x by blast
    then show ?thesis using EvictL2 agree_updates(2)[OF ag] by simp
  qed
qed

section \<open>Every step is a labelled step, or changes nothing observable\<close>

lemma in_set_option: "y \<in> set_option x \<longleftrightarrow> x = Some y"
  by (cases x) auto

lemma step_cases:
  assumes "(s, s') \<in> step L wb P"
  obtains (thread) t where "t \<in> threads P" "step_thread L P t s = Some s'"
    | (f1) w x where "w \<in> wgs L" "fetch_l1 L w x s = Some s'"
    | (f2) d x where "d \<in> devs L" "fetch_l2 d x s = Some s'"
    | (q1) w where "w \<in> wgs L" "dequeue_l1 L w s = Some s'"
    | (q2) d where "d \<in> devs L" "dequeue_l2 d s = Some s'"
    | (w1) w x where "wb = Any" "w \<in> wgs L" "dirty (l1 s w x)" "\<not> locked_out L s w x" "s' = write_back_l1 L w x s"
    | (w2) d x where "wb = Any" "d \<in> devs L" "dirty (l2 s d x)" "s' = write_back_l2 d x s"
    | (e1) w x where "w \<in> wgs L" "l1 s w x \<noteq> None" "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
    | (e2) d x where "d \<in> devs L" "l2 s d x \<noteq> None" "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
proof -
  from assms have "(\<exists>t \<in> threads P. step_thread L P t s = Some s') \<or> s' \<in> env_step L wb s"
    by (simp add: step_def)
  then show ?thesis
  proof
    assume "\<exists>t \<in> threads P. step_thread L P t s = Some s'"
    then show ?thesis using that(1) by blast
  next
    assume "s' \<in> env_step L wb s"
    then consider (a) "s' \<in> (\<Union>w \<in> wgs L. \<Union>x. set_option (fetch_l1 L w x s))"
      | (b) "s' \<in> (\<Union>d \<in> devs L. \<Union>x. set_option (fetch_l2 d x s))"
      | (c) "s' \<in> (\<Union>w \<in> wgs L. set_option (dequeue_l1 L w s))"
      | (d) "s' \<in> (\<Union>d \<in> devs L. set_option (dequeue_l2 d s))"
      | (e) "s' \<in> write_back_any L wb s"
      | (f) "s' \<in> evict L s"
      unfolding env_step_def by blast
    then show ?thesis
    proof cases
      case a
      then obtain w x where "w \<in> wgs L" "fetch_l1 L w x s = Some s'" by (auto simp: in_set_option)
      then show ?thesis by (rule that(2))
    next
      case b
      then obtain d x where "d \<in> devs L" "fetch_l2 d x s = Some s'" by (auto simp: in_set_option)
      then show ?thesis by (rule that(3))
    next
      case c
      then obtain w where "w \<in> wgs L" "dequeue_l1 L w s = Some s'" by (auto simp: in_set_option)
      then show ?thesis by (rule that(4))
    next
      case d
      then obtain d where "d \<in> devs L" "dequeue_l2 d s = Some s'" by (auto simp: in_set_option)
      then show ?thesis by (rule that(5))
    next
      case e
      then show ?thesis
      proof (cases wb)
        case Fifo
        then show ?thesis using e by (simp add: write_back_any_def)
      next
        case Any
        then have "s' \<in> {write_back_l1 L w x s | w x. w \<in> wgs L \<and> dirty (l1 s w x) \<and> \<not> locked_out L s w x}
            \<union> {write_back_l2 d x s | d x. d \<in> devs L \<and> dirty (l2 s d x)}"
          using e by (simp add: write_back_any_def)
        then show ?thesis
        proof (elim UnE)
          assume "s' \<in> {write_back_l1 L w x s | w x. w \<in> wgs L \<and> dirty (l1 s w x) \<and> \<not> locked_out L s w x}"
          then obtain w x where "w \<in> wgs L" "dirty (l1 s w x)" "\<not> locked_out L s w x" "s' = write_back_l1 L w x s"
            by blast
          then show ?thesis by (rule that(6)[OF Any])
        next
          assume "s' \<in> {write_back_l2 d x s | d x. d \<in> devs L \<and> dirty (l2 s d x)}"
          then obtain d x where "d \<in> devs L" "dirty (l2 s d x)" "s' = write_back_l2 d x s"
            by blast
          then show ?thesis by (rule that(7)[OF Any])
        qed
      qed
    next
      case f
      then show ?thesis unfolding evict_def
      proof (elim UnE)
        assume "s' \<in> {set_l1 w x None s | w x. w \<in> wgs L \<and> l1 s w x \<noteq> None \<and> \<not> dirty (l1 s w x)}"
        then obtain w x where "w \<in> wgs L" "l1 s w x \<noteq> None" "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
          by blast
        then show ?thesis by (rule that(8))
      next
        assume "s' \<in> {set_l2 d x None s | d x. d \<in> devs L \<and> l2 s d x \<noteq> None \<and> \<not> dirty (l2 s d x)}"
        then obtain d x where "d \<in> devs L" "l2 s d x \<noteq> None" "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
          by blast
        then show ?thesis by (rule that(9))
      qed
    qed
  qed
qed

lemma enc_outside:
  assumes "x \<notin> set (d_addrs D)"
  shows "enc D (set_l1 w x e s) = enc D s" "enc D (set_l2 d x e s) = enc D s"
  using assms by (auto simp: enc_def set_l1_def set_l2_def)

lemma set_l1_twice: "set_l1 w x e (set_l1 w x e' s) = set_l1 w x e s"
  by (simp add: set_l1_def)

lemma labels_mem:
  assumes "dom_ok D L P"
  shows "t \<in> threads P \<Longrightarrow> Thread t \<in> set (labels D)"
    "w \<in> wgs L \<Longrightarrow> x \<in> addrs P \<Longrightarrow> FetchL1 w x \<in> set (labels D)"
    "d \<in> devs L \<Longrightarrow> x \<in> addrs P \<Longrightarrow> FetchL2 d x \<in> set (labels D)"
    "w \<in> wgs L \<Longrightarrow> DequeueL1 w \<in> set (labels D)"
    "d \<in> devs L \<Longrightarrow> DequeueL2 d \<in> set (labels D)"
    "w \<in> wgs L \<Longrightarrow> x \<in> addrs P \<Longrightarrow> WritebackL1 w x \<in> set (labels D)"
    "d \<in> devs L \<Longrightarrow> x \<in> addrs P \<Longrightarrow> WritebackL2 d x \<in> set (labels D)"
    "w \<in> wgs L \<Longrightarrow> x \<in> addrs P \<Longrightarrow> EvictL1 w x \<in> set (labels D)"
    "d \<in> devs L \<Longrightarrow> x \<in> addrs P \<Longrightarrow> EvictL2 d x \<in> set (labels D)"
  using assms by (simp_all add: labels_def dom_ok_def; blast)+

lemma step_label:
  assumes ok: "dom_ok D L P" and st: "(s, s') \<in> step L wb P" and cl: "clean_outside (addrs P) s"
  shows "enc D s' = enc D s \<or> (\<exists>l \<in> set (labels D). label_step L wb P l s = Some s')"
proof -
  have sets: "set (d_threads D) = threads P" "set (d_wgs D) = wgs L" "set (d_devs D) = devs L"
    "set (d_addrs D) = addrs P"
    using ok by (simp_all add: dom_ok_def)
  have dirty_in: "dirty (l1 s w x) \<Longrightarrow> x \<in> addrs P" "dirty (l2 s d x) \<Longrightarrow> x \<in> addrs P" for w d x
    using cl by (auto simp: clean_outside_def)
  have lab: "l \<in> set (labels D) \<Longrightarrow> label_step L wb P l s = Some s' \<Longrightarrow> ?thesis" for l
    by blast
  from st show ?thesis
  proof (cases rule: step_cases)
    case (thread t)
    then have "label_step L wb P (Thread t) s = Some s'" by simp
    then show ?thesis by (rule lab[OF labels_mem(1)[OF ok thread(1)]])
  next
    case (f1 w x)
    show ?thesis
    proof (cases "x \<in> addrs P")
      case False
      then show ?thesis using f1 sets enc_outside(1) by (auto simp: fetch_l1_def split: if_splits)
    next
      case True
      have "label_step L wb P (FetchL1 w x) s = Some s'"
      proof (cases "l1 s w x \<noteq> None \<and> \<not> dirty (l1 s w x)")
        case True
        then show ?thesis using f1
          by (auto simp: fetch_l1_def set_l1_def locked_out_def split: if_splits)
      next
        case False
        show ?thesis unfolding label_step.simps if_not_P[OF False] using f1 by simp
      qed
      then show ?thesis by (rule lab[OF labels_mem(2)[OF ok f1(1) True]])
    qed
  next
    case (f2 d x)
    show ?thesis
    proof (cases "x \<in> addrs P")
      case False
      then show ?thesis using f2 sets enc_outside(2) by (auto simp: fetch_l2_def split: if_splits)
    next
      case True
      have "label_step L wb P (FetchL2 d x) s = Some s'" using f2 by simp
      then show ?thesis by (rule lab[OF labels_mem(3)[OF ok f2(1) True]])
    qed
  next
    case (q1 w)
    then have "label_step L wb P (DequeueL1 w) s = Some s'" by simp
    then show ?thesis by (rule lab[OF labels_mem(4)[OF ok q1(1)]])
  next
    case (q2 d)
    then have "label_step L wb P (DequeueL2 d) s = Some s'" by simp
    then show ?thesis by (rule lab[OF labels_mem(5)[OF ok q2(1)]])
  next
    case (w1 w x)
    then have x: "x \<in> addrs P" using dirty_in(1) by blast
    have "label_step L wb P (WritebackL1 w x) s = Some s'" using w1 by simp
    then show ?thesis by (rule lab[OF labels_mem(6)[OF ok w1(2) x]])
  next
    case (w2 d x)
    then have x: "x \<in> addrs P" using dirty_in(2) by blast
    have "label_step L wb P (WritebackL2 d x) s = Some s'" using w2 by simp
    then show ?thesis by (rule lab[OF labels_mem(7)[OF ok w2(2) x]])
  next
    case (e1 w x)
    show ?thesis
    proof (cases "x \<in> addrs P")
      case False
      then show ?thesis using e1 sets enc_outside(1) by simp
    next
      case True
      have "label_step L wb P (EvictL1 w x) s = Some s'" using e1 by simp
      then show ?thesis by (rule lab[OF labels_mem(8)[OF ok e1(1) True]])
    qed
  next
    case (e2 d x)
    show ?thesis
    proof (cases "x \<in> addrs P")
      case False
      then show ?thesis using e2 sets enc_outside(2) by simp
    next
      case True
      have "label_step L wb P (EvictL2 d x) s = Some s'" using e2 by simp
      then show ?thesis by (rule lab[OF labels_mem(9)[OF ok e2(1) True]])
    qed
  qed
qed

section \<open>Finite sets of encoded states, searched by a hash\<close>

text \<open>A binary tree keyed by a hash, each key holding the states with that
  hash. Only the soundness of membership is used (bst_mem_set): a state
  found is in the tree; the search that builds the tree is not trusted.\<close>
datatype bst = Tip | Node bst int "astate list" bst

fun bst_set :: "bst \<Rightarrow> astate set" where
  "bst_set Tip = {}"
| "bst_set (Node l k xs r) = bst_set l \<union> set xs \<union> bst_set r"

fun bst_mem :: "int \<Rightarrow> astate \<Rightarrow> bst \<Rightarrow> bool" where
  "bst_mem h x Tip = False"
| "bst_mem h x (Node l k xs r) =
     (if h < k then bst_mem h x l else if k < h then bst_mem h x r else x \<in> set xs)"

lemma bst_mem_set: "bst_mem h x t \<Longrightarrow> x \<in> bst_set t"
  by (induction t) (auto split: if_splits)

fun bst_ins :: "int \<Rightarrow> astate \<Rightarrow> bst \<Rightarrow> bst" where
  "bst_ins h x Tip = Node Tip h [x] Tip"
| "bst_ins h x (Node l k xs r) =
     (if h < k then Node (bst_ins h x l) k xs r
      else if k < h then Node l k xs (bst_ins h x r) else Node l k (x # xs) r)"

fun bst_list :: "bst \<Rightarrow> astate list" where
  "bst_list Tip = []"
| "bst_list (Node l k xs r) = bst_list l @ xs @ bst_list r"

lemma set_bst_list [simp]: "set (bst_list t) = bst_set t"
  by (induction t) auto

text \<open>The hash: a weighted sum of the state's numbers (weights 1, 3, ..., 17
  in turn). The search only needs it to spread states over the tree (equal
  hashes share a bucket). It keeps its numbers small: eval computes with
  the code generator's own binary integers (the theories import no
  target-language integers, so that they load in any session over HOL),
  where a product-and-remainder hash of 60-bit numbers made the search ten
  times slower (17 s against 1.7 s on a program of 140 states).\<close>
fun wsum :: "int \<Rightarrow> int list \<Rightarrow> int" where
  "wsum w [] = 0"
| "wsum w (v # vs) = w * v + wsum (if w < 17 then w + 2 else 1) vs"

fun hentry :: "entry option \<Rightarrow> int" where
  "hentry None = 0"
| "hentry (Some (v, h, f)) = 4 * v + (if h = Dirty then 2 else 0) + (if f = Invalid then 1 else 0) + 5"

fun hfifo :: "fifo_el \<Rightarrow> int" where
  "hfifo (Addr x) = 2 * int x + 1"
| "hfifo (Flush t) = 2 * int t + 2"

fun hopt :: "nat option \<Rightarrow> int" where
  "hopt None = 0"
| "hopt (Some t) = int t + 1"

definition hash :: "astate \<Rightarrow> int" where
  "hash a = (case a of (am, al2, af2, alk, al1, af1, arl, ars, apc) \<Rightarrow>
     wsum 1 (am @ map hentry (concat al2) @ concat (map (\<lambda>f. map hfifo f @ [-1]) af2)
       @ map hopt (concat alk) @ map hentry (concat al1) @ concat (map (\<lambda>f. map hfifo f @ [-1]) af1)
       @ map hopt arl @ concat ars @ map int apc))"

section \<open>Closed sets of states and the machine's outcomes\<close>

definition closed :: "dom \<Rightarrow> layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> bst \<Rightarrow> bool" where
  "closed D L wb P V \<longleftrightarrow>
     (\<forall>a \<in> set (bst_list V). \<forall>l \<in> set (labels D).
        case label_step L wb P l (conc D a) of None \<Rightarrow> True | Some c \<Rightarrow> bst_mem (hash (enc D c)) (enc D c) V)"

theorem reachable_in_closed:
  assumes ok: "dom_ok D L P" and init: "enc D (initial m) \<in> bst_set V" and cl: "closed D L wb P V"
    and s: "s \<in> reachable L wb P (initial m)"
  shows "enc D s \<in> bst_set V"
proof -
  have "(initial m, s) \<in> (step L wb P)\<^sup>*" using s by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    then show ?case by (rule init)
  next
    case (step s1 s2)
    have c1: "clean_outside (addrs P) s1"
      using step.hyps(1) reachable_clean_outside by (simp add: reachable_def)
    from step_label[OF ok step.hyps(2) c1] show ?case
    proof
      assume "enc D s2 = enc D s1"
      then show ?thesis using step.IH by simp
    next
      assume "\<exists>l \<in> set (labels D). label_step L wb P l s1 = Some s2"
      then obtain l where l: "l \<in> set (labels D)" and ls: "label_step L wb P l s1 = Some s2" by blast
      define c where "c = conc D (enc D s1)"
      have "rel_option (agree D) (label_step L wb P l s1) (label_step L wb P l c)"
        unfolding c_def by (rule label_cong[OF ok agree_conc l c1 conc_clean[OF ok]])
      then obtain c' where lc: "label_step L wb P l c = Some c'" and ag: "agree D s2 c'"
        using ls by (cases "label_step L wb P l c") auto
      have "bst_mem (hash (enc D c')) (enc D c') V"
        using cl step.IH l lc unfolding closed_def c_def by fastforce
      then show ?thesis using ag bst_mem_set by (simp add: agree_def)
    qed
  qed
qed

text \<open>What an outcome shows: registers of threads and memory at addresses.\<close>
datatype obs = OReg tid reg | OMem addr

fun obs_val :: "state \<Rightarrow> obs \<Rightarrow> int" where
  "obs_val s (OReg t r) = regs s t r"
| "obs_val s (OMem x) = mem s x"

definition obs_ok :: "dom \<Rightarrow> obs list \<Rightarrow> bool" where
  "obs_ok D os \<longleftrightarrow>
     (\<forall>ob \<in> set os. case ob of OReg t r \<Rightarrow> t \<in> set (d_threads D) \<and> r \<in> set (d_regs D) | OMem x \<Rightarrow> x \<in> set (d_addrs D))"

lemma obs_agree: "obs_ok D os \<Longrightarrow> agree D s1 s2 \<Longrightarrow> map (obs_val s1) os = map (obs_val s2) os"
  by (auto simp: obs_ok_def agree_iff0 split: obs.splits) (metis obs.exhaust obs_val.simps)

lemma final_on_agree:
  "dom_ok D L P \<Longrightarrow> agree D s1 s2 \<Longrightarrow> is_final_on (addrs P) L P s1 \<Longrightarrow> is_final_on (addrs P) L P s2"
  by (simp add: is_final_on_def agree_iff)

definition finals_within :: "dom \<Rightarrow> layout \<Rightarrow> program \<Rightarrow> obs list \<Rightarrow> int list list \<Rightarrow> bst \<Rightarrow> bool" where
  "finals_within D L P os vs V \<longleftrightarrow>
     (\<forall>a \<in> set (bst_list V). is_final_on (addrs P) L P (conc D a) \<longrightarrow> map (obs_val (conc D a)) os \<in> set vs)"

text \<open>The search: a worklist of encoded states, the tree of those seen.
  Its result is checked (outcomes_check), so nothing is proved of it.\<close>
definition succs :: "dom \<Rightarrow> layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> astate \<Rightarrow> astate list" where
  "succs D L wb P a = List.map_filter (\<lambda>l. map_option (enc D) (label_step L wb P l (conc D a))) (labels D)"

fun explore :: "nat \<Rightarrow> (astate \<Rightarrow> astate list) \<Rightarrow> astate list \<Rightarrow> bst \<Rightarrow> bst option" where
  "explore 0 f ws V = None"
| "explore (Suc n) f [] V = Some V"
| "explore (Suc n) f (a # ws) V =
     (case fold (\<lambda>b (ws, V). let h = hash b in if bst_mem h b V then (ws, V) else (b # ws, bst_ins h b V))
             (f a) (ws, V) of (ws', V') \<Rightarrow> explore n f ws' V')"

definition outcomes_check ::
  "nat \<Rightarrow> dom \<Rightarrow> layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> (addr \<Rightarrow> int) \<Rightarrow> obs list \<Rightarrow> int list list \<Rightarrow> nat \<Rightarrow> bool" where
  "outcomes_check k D L wb P m os vs n \<longleftrightarrow> dom_ok D L P \<and> obs_ok D os \<and>
     (let a0 = enc D (initial m) in
      case explore k (succs D L wb P) [a0] (bst_ins (hash a0) a0 Tip) of
        None \<Rightarrow> False
      | Some V \<Rightarrow> bst_mem (hash a0) a0 V \<and> closed D L wb P V \<and> finals_within D L P os vs V
                  \<and> length (filter (\<lambda>a. \<not> is_final_on (addrs P) L P (conc D a)) (bst_list V)) = n)"

text \<open>Every final state the machine reaches shows one of the outcomes vs
  (evaluate the premise by eval). n, the number of encoded states that are
  not final, is not needed for the proof: it is hrf's count, compared.\<close>
theorem machine_outcomes_within:
  assumes "outcomes_check k D L wb P m os vs n"
  shows "\<forall>s \<in> reachable L wb P (initial m). is_final L P s \<longrightarrow> map (obs_val s) os \<in> set vs"
proof (intro ballI impI)
  fix s assume s: "s \<in> reachable L wb P (initial m)" and fin: "is_final L P s"
  define a0 where "a0 = enc D (initial m)"
  obtain V where ok: "dom_ok D L P" and oo: "obs_ok D os"
    and V: "bst_mem (hash a0) a0 V" "closed D L wb P V" "finals_within D L P os vs V"
    using assms unfolding outcomes_check_def Let_def a0_def[symmetric] by (auto split: option.splits)
  have "enc D s \<in> bst_set V"
    by (rule reachable_in_closed[OF ok _ V(2) s]) (use V(1) bst_mem_set a0_def in simp)
  moreover have "is_final_on (addrs P) L P s"
    using fin by (auto simp: is_final_def is_final_on_def)
  then have "is_final_on (addrs P) L P (conc D (enc D s))"
    by (rule final_on_agree[OF ok agree_conc])
  ultimately have "map (obs_val (conc D (enc D s))) os \<in> set vs"
    using V(3) unfolding finals_within_def by simp
  then show "map (obs_val s) os \<in> set vs"
    using obs_agree[OF oo agree_conc] by simp
qed

end
