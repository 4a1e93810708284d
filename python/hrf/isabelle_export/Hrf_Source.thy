(* hrf base theory: the candidate executions of a source program of
   Hrf_Mapping, with values (events numbered as Hrf_Execution's executions
   are), the outcomes an axiomatic model allows a program, and the theorem
   that every outcome of the SC semantics of Hrf_Simulation is the outcome
   of an SC-consistent candidate execution. The source models SC,
   HRF-direct and HRF-indirect (Hrf_Models) and the two HRF-relaxed models
   (their exported theories, with Hrf_Lattice) then discharge the
   assumption of Hrf_Simulation's locale sc_source_model, so that its
   soundness theorems hold against each of them. Written by hand, every
   proof complete. *)
theory Hrf_Source
  imports Hrf_Simulation Hrf_Lattice
begin

section \<open>Events of a source program\<close>

text \<open>An event: the initial write of a location, or the access of thread t's
  instruction i (its read part, or, with the flag, the write part of an
  RMW: herd's two events of an RMW, paired by rmw).\<close>
datatype sev = Init addr | Acc tid nat bool

text \<open>Executions number their events: 2^a (2b + 1) numbers pairs one to one.\<close>
definition pr :: "nat \<Rightarrow> nat \<Rightarrow> nat" where
  "pr a b = 2 ^ a * (2 * b + 1)"

lemma pr_inj: "pr a b = pr c d \<Longrightarrow> a = c \<and> b = d"
proof (induction a arbitrary: c)
  case 0
  then show ?case
    by (cases c) (auto simp: pr_def, presburger)
next
  case (Suc a)
  note IH = Suc.IH and eq = Suc.prems
  show ?case
  proof (cases c)
    case 0
    then show ?thesis using eq by (simp add: pr_def) presburger
  next
    case (Suc c')
    then have "pr a b = pr c' d" using eq by (simp add: pr_def)
    then show ?thesis using IH Suc by blast
  qed
qed

fun enc :: "sev \<Rightarrow> nat" where
  "enc (Init x) = pr 0 x"
| "enc (Acc t i p) = pr (Suc t) (pr i (if p then 1 else 0))"

lemma enc_inj: "enc e = enc e' \<Longrightarrow> e = e'"
  by (cases e; cases e') (auto dest!: pr_inj split: if_splits)

definition dec :: "nat \<Rightarrow> sev" where
  "dec n = (THE e. enc e = n)"

lemma dec_enc [simp]: "dec (enc e) = e"
  unfolding dec_def by (rule the_equality) (auto dest: enc_inj)

declare enc.simps [simp del]

text \<open>Which part of an instruction is a read and which a write: a load
  reads, a store writes, an RMW's read part reads and its write part
  writes; a register move accesses nothing.\<close>
fun rd :: "src_instr \<Rightarrow> bool \<Rightarrow> bool" where
  "rd (Op (Load _ _) _ _) p = (\<not> p)"
| "rd (Op (FetchInc _ _) _ _) p = (\<not> p)"
| "rd _ _ = False"

fun wr :: "src_instr \<Rightarrow> bool \<Rightarrow> bool" where
  "wr (Op (Store _ _) _ _) p = (\<not> p)"
| "wr (Op (FetchInc _ _) _ _) p = p"
| "wr _ _ = False"

lemma rd_wr: "rd c p \<Longrightarrow> \<not> wr c p"
  by (cases "(c, p)" rule: rd.cases) auto

lemma rd_part: "rd c p \<Longrightarrow> \<not> p"
  by (cases "(c, p)" rule: rd.cases) auto

lemma wr_part: "wr c True \<Longrightarrow> \<exists>sc rm r x. c = Op (FetchInc sc rm) r x"
  by (cases "(c, True)" rule: wr.cases) auto

fun addr_of :: "src_instr \<Rightarrow> addr option" where
  "addr_of (Op a r x) = Some x"
| "addr_of (SetReg r v) = None"

lemma rd_addr: "rd c p \<Longrightarrow> \<exists>x. addr_of c = Some x"
  by (cases "(c, p)" rule: rd.cases) auto

lemma wr_addr: "wr c p \<Longrightarrow> \<exists>x. addr_of c = Some x"
  by (cases "(c, p)" rule: wr.cases) auto

definition ins :: "src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> src_instr" where
  "ins P t i = src_code P t ! i"

text \<open>The locations the program accesses, and its events.\<close>
definition src_locs :: "src_program \<Rightarrow> addr set" where
  "src_locs P = {x. \<exists>t \<in> src_threads P. \<exists>i < length (src_code P t). addr_of (ins P t i) = Some x}"

definition acc :: "src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool \<Rightarrow> bool" where
  "acc P t i p \<longleftrightarrow> t \<in> src_threads P \<and> i < length (src_code P t) \<and> (rd (ins P t i) p \<or> wr (ins P t i) p)"

fun is_ev :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "is_ev P (Init x) \<longleftrightarrow> x \<in> src_locs P"
| "is_ev P (Acc t i p) \<longleftrightarrow> acc P t i p"

fun is_rd :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "is_rd P (Init x) \<longleftrightarrow> False"
| "is_rd P (Acc t i p) \<longleftrightarrow> acc P t i p \<and> rd (ins P t i) p"

fun is_wr :: "src_program \<Rightarrow> sev \<Rightarrow> bool" where
  "is_wr P (Init x) \<longleftrightarrow> x \<in> src_locs P"
| "is_wr P (Acc t i p) \<longleftrightarrow> acc P t i p \<and> wr (ins P t i) p"

fun sloc :: "src_program \<Rightarrow> sev \<Rightarrow> addr option" where
  "sloc P (Init x) = Some x"
| "sloc P (Acc t i p) = addr_of (ins P t i)"

fun sthread :: "sev \<Rightarrow> tid option" where
  "sthread (Init x) = None"
| "sthread (Acc t i p) = Some t"

text \<open>The scope of a thread event's operation, and its instance in the
  layout: the thread's work-group, its device, or the whole system
  (numbered apart: work-groups 3w, devices 3d + 1, the system 2).\<close>
fun op_scope :: "src_instr \<Rightarrow> src_scope" where
  "op_scope (Op (Load sc _) _ _) = sc"
| "op_scope (Op (Store sc _) _ _) = sc"
| "op_scope (Op (FetchInc sc _) _ _) = sc"
| "op_scope (SetReg _ _) = NonAtomic"

fun op_remote :: "src_instr \<Rightarrow> bool" where
  "op_remote (Op (Load _ rm) _ _) = rm"
| "op_remote (Op (Store _ rm) _ _) = rm"
| "op_remote (Op (FetchInc _ rm) _ _) = rm"
| "op_remote (SetReg _ _) = False"

definition scope_inst :: "layout \<Rightarrow> tid \<Rightarrow> src_scope \<Rightarrow> int option" where
  "scope_inst L t sc = (case sc of NonAtomic \<Rightarrow> None
     | WorkGroup \<Rightarrow> Some (3 * int (wg_of L t))
     | Device \<Rightarrow> Some (3 * int (dev_of L (wg_of L t)) + 1)
     | AllDevices \<Rightarrow> Some 2)"

fun sinst :: "layout \<Rightarrow> src_program \<Rightarrow> sev \<Rightarrow> int option" where
  "sinst L P (Init x) = None"
| "sinst L P (Acc t i p) = scope_inst L t (op_scope (ins P t i))"

text \<open>The memory order of an atomic (Hrf_Mapping's operations carry none:
  hrf's rows are those of acquire loads, release stores and acq_rel RMWs).\<close>
fun mo_tag :: "src_instr \<Rightarrow> string" where
  "mo_tag (Op (Load _ _) _ _) = ''acq''"
| "mo_tag (Op (Store _ _) _ _) = ''rel''"
| "mo_tag (Op (FetchInc _ _) _ _) = ''acq_rel''"
| "mo_tag (SetReg _ _) = ''''"

definition scope_tag :: "src_scope \<Rightarrow> string" where
  "scope_tag sc = (case sc of NonAtomic \<Rightarrow> ''NA'' | WorkGroup \<Rightarrow> ''wg'' | Device \<Rightarrow> ''dev'' | AllDevices \<Rightarrow> ''all'')"

text \<open>The locations the program accesses by no atomic operation (OpenCL's
  non-atomic locations, herd's nonatomicloc: a location's type is atomic
  where some access of it is).\<close>
definition nal_locs :: "src_program \<Rightarrow> addr set" where
  "nal_locs P = {x. \<forall>t \<in> src_threads P. \<forall>i < length (src_code P t).
     addr_of (ins P t i) = Some x \<longrightarrow> op_scope (ins P t i) = NonAtomic}"

text \<open>hrf's tags: R, W, M, IW; global (every location is in global memory,
  the machine's); nonatomicloc; A (atomic) or NA; an atomic's scope and
  memory order; remote.\<close>
definition src_tags :: "src_program \<Rightarrow> string \<Rightarrow> sev set" where
  "src_tags P s = {e. is_ev P e \<and>
     (if s = ''R'' then is_rd P e
      else if s = ''W'' then is_wr P e
      else if s = ''M'' then is_rd P e \<or> is_wr P e
      else if s = ''IW'' then (\<exists>x. e = Init x)
      else if s = ''global'' then True
      else if s = ''nonatomicloc'' then (\<exists>x. sloc P e = Some x \<and> x \<in> nal_locs P)
      else (case e of Init x \<Rightarrow> False | Acc t i p \<Rightarrow>
              (s = ''A'' \<and> op_scope (ins P t i) \<noteq> NonAtomic)
            \<or> (s = ''NA'' \<and> op_scope (ins P t i) = NonAtomic)
            \<or> (s = scope_tag (op_scope (ins P t i)) \<and> op_scope (ins P t i) \<noteq> NonAtomic)
            \<or> (s = mo_tag (ins P t i) \<and> op_scope (ins P t i) \<noteq> NonAtomic)
            \<or> (s = ''remote'' \<and> op_remote (ins P t i))))}"

text \<open>Program order: a thread's accesses in the order of its code, an RMW's
  read part before its write part.\<close>
definition src_po :: "src_program \<Rightarrow> sev rel" where
  "src_po P = {(Acc t i p, Acc t j q) | t i p j q.
     acc P t i p \<and> acc P t j q \<and> (i < j \<or> (i = j \<and> \<not> p \<and> q))}"

definition src_rmw :: "src_program \<Rightarrow> sev rel" where
  "src_rmw P = {(Acc t i False, Acc t i True) | t i. acc P t i False \<and> acc P t i True}"

definition lift :: "sev rel \<Rightarrow> event rel" where
  "lift r = (\<lambda>(a, b). (enc a, enc b)) ` r"

lemma lift_mem: "(a, b) \<in> r \<Longrightarrow> (enc a, enc b) \<in> lift r"
  by (force simp: lift_def)

lemma lift_trans:
  assumes "trans r"
  shows "trans (lift r)"
proof (rule transI)
  fix a b c assume ab: "(a, b) \<in> lift r" and bc: "(b, c) \<in> lift r"
  obtain x y where xy: "a = enc x" "b = enc y" "(x, y) \<in> r"
    using ab by (auto simp: lift_def)
  obtain y' z where yz: "b = enc y'" "c = enc z" "(y', z) \<in> r"
    using bc by (auto simp: lift_def)
  have "y = y'" using xy(2) yz(1) by (auto dest: enc_inj)
  then have "(x, z) \<in> r" using xy(3) yz(3) assms by (meson transD)
  then show "(a, c) \<in> lift r" using xy(1) yz(2) by (force simp: lift_def)
qed

lemma conv_mem: "(a, b) \<in> r \<Longrightarrow> (b, a) \<in> conv r"
  by (force simp: conv_def)

text \<open>The candidate execution of P on layout L whose reads read from the
  writes rfw names and whose coherence order is co. Dependencies are left
  empty: the models of Hrf_Models read none.\<close>
definition src_exec :: "layout \<Rightarrow> src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel \<Rightarrow> execution" where
  "src_exec L P rfw co_s = \<lparr>
     events = enc ` Collect (is_ev P),
     thread_of = (\<lambda>n. sthread (dec n)),
     loc_of = (\<lambda>n. sloc P (dec n)),
     tags = (\<lambda>s. enc ` src_tags P s),
     attr = (\<lambda>a n. if a = ''sinst'' then sinst L P (dec n) else None),
     thread_attr = (\<lambda>a t. if a = ''wi'' then Some (int t)
        else if a = ''wg'' then Some (int (wg_of L t))
        else if a = ''dev'' then Some (int (dev_of L (wg_of L t))) else None),
     po_imm = lift (src_po P),
     co_imm = lift co_s,
     rf = lift {(rfw r, r) | r. is_rd P r},
     rmw = lift (src_rmw P),
     data = {},
     ctrl = {} \<rparr>"

section \<open>Values and outcomes\<close>

text \<open>A thread on its own, given the value each of its instructions reads:
  its registers before instruction i, and the value a store writes.\<close>
fun step_regs :: "src_instr \<Rightarrow> int \<Rightarrow> (reg \<Rightarrow> int) \<Rightarrow> (reg \<Rightarrow> int)" where
  "step_regs (Op (Load _ _) r x) a R = R(r := a)"
| "step_regs (Op (FetchInc _ _) r x) a R = R(r := a)"
| "step_regs (Op (Store _ _) r x) a R = R"
| "step_regs (SetReg r c) a R = R(r := c)"

fun tregs :: "src_instr list \<Rightarrow> (nat \<Rightarrow> int) \<Rightarrow> nat \<Rightarrow> reg \<Rightarrow> int" where
  "tregs cs rv 0 = (\<lambda>_. 0)"
| "tregs cs rv (Suc i) = step_regs (cs ! i) (rv i) (tregs cs rv i)"

text \<open>The value of each event (v): an initial write writes the initial
  value, a read reads what the write it reads from wrote, a store writes its
  register as the thread's code computes it from the values its reads
  returned, an RMW's write part writes its read part's value plus one.\<close>
definition reads_val :: "(sev \<Rightarrow> int) \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> int" where
  "reads_val v t i = v (Acc t i False)"

definition values_ok :: "src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> (sev \<Rightarrow> int) \<Rightarrow> bool" where
  "values_ok P rfw v \<longleftrightarrow>
     (\<forall>x \<in> src_locs P. v (Init x) = src_init P x)
   \<and> (\<forall>r. is_rd P r \<longrightarrow> v r = v (rfw r))
   \<and> (\<forall>t i r x sc rm. acc P t i False \<longrightarrow> ins P t i = Op (Store sc rm) r x
        \<longrightarrow> v (Acc t i False) = tregs (src_code P t) (reads_val v t) i r)
   \<and> (\<forall>t i. acc P t i True \<longrightarrow> v (Acc t i True) = v (Acc t i False) + 1)"

text \<open>A candidate: each read reads from a write of its location; coherence
  orders the writes of each location totally and strictly, the initial
  write first.\<close>
definition cand_ok :: "src_program \<Rightarrow> (sev \<Rightarrow> sev) \<Rightarrow> sev rel \<Rightarrow> (sev \<Rightarrow> int) \<Rightarrow> bool" where
  "cand_ok P rfw co_s v \<longleftrightarrow>
     (\<forall>r. is_rd P r \<longrightarrow> is_wr P (rfw r) \<and> sloc P (rfw r) = sloc P r)
   \<and> co_s \<subseteq> {(w, w'). is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> (\<forall>x. w' \<noteq> Init x)}
   \<and> trans co_s \<and> irrefl co_s
   \<and> (\<forall>w w'. is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> w \<noteq> w' \<longrightarrow> (w, w') \<in> co_s \<or> (w', w) \<in> co_s)
   \<and> values_ok P rfw v"

text \<open>The outcome of a candidate: each thread's registers at its end, and
  for each location the value of its coherence-last write (the initial
  value where the program accesses it not).\<close>
definition src_regs :: "src_program \<Rightarrow> (sev \<Rightarrow> int) \<Rightarrow> tid \<Rightarrow> reg \<Rightarrow> int" where
  "src_regs P v t = tregs (src_code P t) (reads_val v t) (if t \<in> src_threads P then length (src_code P t) else 0)"

definition is_outcome :: "src_program \<Rightarrow> sev rel \<Rightarrow> (sev \<Rightarrow> int) \<Rightarrow> outcome \<Rightarrow> bool" where
  "is_outcome P co_s v ob \<longleftrightarrow>
     fst ob = src_regs P v
   \<and> (\<forall>x. x \<notin> src_locs P \<longrightarrow> snd ob x = src_init P x)
   \<and> (\<forall>x \<in> src_locs P. \<exists>w. is_wr P w \<and> sloc P w = Some x \<and> (\<forall>w'. (w, w') \<notin> co_s) \<and> snd ob x = v w)"

text \<open>The outcomes a model (its consistency predicate) allows P on L, and
  whether P is racy under it (a consistent candidate with a race).\<close>
definition src_allowed :: "(execution \<Rightarrow> bool) \<Rightarrow> layout \<Rightarrow> src_program \<Rightarrow> outcome set" where
  "src_allowed cons L P = {ob. \<exists>rfw co_s v. cand_ok P rfw co_s v
     \<and> cons (src_exec L P rfw co_s) \<and> is_outcome P co_s v ob}"

definition src_racy :: "(execution \<Rightarrow> bool) \<Rightarrow> (execution \<Rightarrow> event rel) \<Rightarrow> layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "src_racy cons race L P \<longleftrightarrow> (\<exists>rfw co_s v. cand_ok P rfw co_s v
     \<and> cons (src_exec L P rfw co_s) \<and> race (src_exec L P rfw co_s) \<noteq> {})"

section \<open>Candidates are well-formed\<close>

text \<open>Every candidate is well-formed in the sense of Hrf_Theorems, so that
  the papers' per-execution theorems (SC for HRF, [HRFR15] Theorem A.4)
  apply to the source model's candidates.\<close>
lemma rd_not_wr: "is_rd P e \<Longrightarrow> \<not> is_wr P e"
  by (cases e) (auto dest: rd_wr)

lemma ev_of: "is_rd P e \<or> is_wr P e \<Longrightarrow> is_ev P e"
  by (cases e) auto

lemma tags_R: "src_tags P ''R'' = Collect (is_rd P)"
  and tags_W: "src_tags P ''W'' = Collect (is_wr P)"
  and tags_M: "src_tags P ''M'' = {e. is_rd P e \<or> is_wr P e}"
  and tags_IW: "src_tags P ''IW'' = Init ` src_locs P"
  by (auto simp: src_tags_def ev_of)

lemma tags_A_NA: "is_ev P (Acc t i p) \<Longrightarrow> Acc t i p \<in> src_tags P ''A'' \<union> src_tags P ''NA''"
  by (auto simp: src_tags_def)

theorem cand_well_formed:
  assumes c: "cand_ok P rfw co_s v"
  shows "well_formed (src_exec L P rfw co_s)"
  unfolding well_formed_def
proof (intro conjI)
  let ?X = "src_exec L P rfw co_s"
  show "reads ?X \<inter> writes ?X = {}"
    by (auto simp: reads_def writes_def tag_def src_exec_def tags_R tags_W dest!: enc_inj rd_not_wr)
  show "reads ?X \<union> writes ?X \<subseteq> accesses ?X"
    by (auto simp: reads_def writes_def accesses_def tag_def src_exec_def tags_R tags_W tags_M)
  show "init_writes ?X \<subseteq> writes ?X"
    by (auto simp: init_writes_def writes_def tag_def src_exec_def tags_IW tags_W)
  show "accesses ?X - init_writes ?X \<subseteq> atomics ?X \<union> ordinary ?X"
  proof
    fix n assume n: "n \<in> accesses ?X - init_writes ?X"
    then obtain e where e: "n = enc e" "is_rd P e \<or> is_wr P e" "e \<notin> Init ` src_locs P"
      by (auto simp: accesses_def init_writes_def tag_def src_exec_def tags_M tags_IW)
    then obtain t i p where "e = Acc t i p"
      by (cases e) auto
    then have "e \<in> src_tags P ''A'' \<union> src_tags P ''NA''"
      using tags_A_NA ev_of[OF e(2)] by simp
    then show "n \<in> atomics ?X \<union> ordinary ?X"
      using e(1) by (auto simp: atomics_def ordinary_def tag_def src_exec_def)
  qed
  show "rf ?X \<subseteq> (writes ?X \<times> reads ?X) \<inter> loc ?X"
  proof
    fix q assume "q \<in> rf ?X"
    then obtain r where r: "q = (enc (rfw r), enc r)" "is_rd P r"
      by (auto simp: src_exec_def lift_def)
    have w: "is_wr P (rfw r)" "sloc P (rfw r) = sloc P r"
      using c r(2) by (auto simp: cand_ok_def)
    obtain t i x where "r = Acc t i False" "addr_of (ins P t i) = Some x"
      using r(2) rd_addr rd_part by (cases r) fastforce+
    then have "sloc P r \<noteq> None" by simp
    then show "q \<in> (writes ?X \<times> reads ?X) \<inter> loc ?X"
      using r w ev_of[of P r] ev_of[of P "rfw r"]
      by (auto simp: writes_def reads_def tag_def src_exec_def tags_R tags_W loc_def pairs_where_def)
  qed
  show "co_imm ?X \<subseteq> (writes ?X \<times> (writes ?X - init_writes ?X)) \<inter> loc ?X"
  proof
    fix q assume "q \<in> co_imm ?X"
    then obtain w w' where q: "q = (enc w, enc w')" "(w, w') \<in> co_s"
      by (auto simp: src_exec_def lift_def)
    then have w: "is_wr P w" "is_wr P w'" "sloc P w = sloc P w'" "\<forall>x. w' \<noteq> Init x"
      using c by (auto simp: cand_ok_def)
    have "sloc P w' \<noteq> None"
      using w(2) w(4) by (cases w') (auto simp: acc_def dest: wr_addr)
    then show "q \<in> (writes ?X \<times> (writes ?X - init_writes ?X)) \<inter> loc ?X"
      using q w ev_of[of P w] ev_of[of P w']
      by (auto simp: writes_def init_writes_def tag_def src_exec_def tags_W tags_IW loc_def pairs_where_def
               dest!: enc_inj)
  qed
  show "po_imm ?X \<subseteq> thread_events ?X \<times> thread_events ?X"
    by (auto simp: src_exec_def lift_def src_po_def thread_events_def init_writes_def tag_def tags_IW
             dest!: enc_inj)
qed

section \<open>SC runs as schedules\<close>

definition sc_do :: "src_program \<Rightarrow> tid \<Rightarrow> sc_state \<Rightarrow> sc_state" where
  "sc_do P t \<sigma> = (sc_exec t (src_code P t ! sc_pc \<sigma> t) \<sigma>)\<lparr>sc_pc := (sc_pc \<sigma>)(t := Suc (sc_pc \<sigma> t))\<rparr>"

definition run :: "src_program \<Rightarrow> tid list \<Rightarrow> sc_state" where
  "run P ts = fold (sc_do P) ts (sc_initial P)"

lemma run_snoc [simp]: "run P (ts @ [t]) = sc_do P t (run P ts)"
  by (simp add: run_def)

lemma run_Nil [simp]: "run P [] = sc_initial P"
  by (simp add: run_def)

definition valid :: "src_program \<Rightarrow> tid list \<Rightarrow> bool" where
  "valid P ts \<longleftrightarrow> (\<forall>k < length ts. ts ! k \<in> src_threads P
     \<and> sc_pc (run P (take k ts)) (ts ! k) < length (src_code P (ts ! k)))"

lemma valid_snoc:
  "valid P (ts @ [t]) \<longleftrightarrow> valid P ts \<and> t \<in> src_threads P \<and> sc_pc (run P ts) t < length (src_code P t)"
  unfolding valid_def by (auto simp: nth_append less_Suc_eq)

lemma steps_run:
  assumes "(sc_initial P, \<sigma>) \<in> (sc_step P)\<^sup>*"
  shows "\<exists>ts. valid P ts \<and> run P ts = \<sigma>"
  using assms
proof (induction rule: rtrancl_induct)
  case base
  have "valid P []" by (simp add: valid_def)
  then show ?case by force
next
  case (step \<sigma> \<sigma>')
  then obtain ts where ts: "valid P ts" "run P ts = \<sigma>" by blast
  from step(2) obtain t where t: "t \<in> src_threads P" "sc_pc \<sigma> t < length (src_code P t)"
    "\<sigma>' = sc_do P t \<sigma>"
    by (auto simp: sc_step_def sc_do_def)
  then have "valid P (ts @ [t]) \<and> run P (ts @ [t]) = \<sigma>'"
    using ts by (simp add: valid_snoc)
  then show ?case by blast
qed

lemma run_pc: "sc_pc (run P ts) t = count_list ts t"
  by (induction ts rule: rev_induct) (auto simp: sc_initial_def sc_do_def)

lemma valid_take: "valid P ts \<Longrightarrow> k \<le> length ts \<Longrightarrow> valid P (take k ts)"
  unfolding valid_def by (auto simp: min_def)

lemma valid_count:
  "valid P ts \<Longrightarrow> count_list ts t \<le> length (src_code P t) \<and> (t \<notin> src_threads P \<longrightarrow> count_list ts t = 0)"
proof (induction ts rule: rev_induct)
  case Nil
  then show ?case by simp
next
  case (snoc u ts)
  then show ?case by (auto simp: valid_snoc run_pc Suc_le_eq)
qed

section \<open>The steps of a schedule, in order\<close>

text \<open>Step k of a schedule performs instruction i of thread t, where i
  counts t's earlier steps.\<close>
definition evl :: "tid list \<Rightarrow> (tid \<times> nat) list" where
  "evl ts = map (\<lambda>k. (ts ! k, count_list (take k ts) (ts ! k))) [0..<length ts]"

lemma evl_snoc [simp]: "evl (ts @ [t]) = evl ts @ [(t, count_list ts t)]"
  unfolding evl_def by (auto simp: nth_append)

lemma evl_Nil [simp]: "evl [] = []"
  by (simp add: evl_def)

lemma length_evl [simp]: "length (evl ts) = length ts"
  by (simp add: evl_def)

lemma set_evl: "set (evl ts) = {(t, i). i < count_list ts t}"
  by (induction ts rule: rev_induct) (auto simp: less_Suc_eq split: if_splits)

lemma distinct_evl: "distinct (evl ts)"
  by (induction ts rule: rev_induct) (auto simp: set_evl)

lemma evl_nth: "k < length ts \<Longrightarrow> evl ts ! k = (ts ! k, count_list (take k ts) (ts ! k))"
  by (simp add: evl_def)

fun idx :: "'a list \<Rightarrow> 'a \<Rightarrow> nat" where
  "idx [] a = 0"
| "idx (x # xs) a = (if x = a then 0 else Suc (idx xs a))"

lemma idx_nth: "a \<in> set xs \<Longrightarrow> idx xs a < length xs \<and> xs ! idx xs a = a"
  by (induction xs) auto

lemma nth_idx: "distinct xs \<Longrightarrow> k < length xs \<Longrightarrow> idx xs (xs ! k) = k"
proof (induction xs arbitrary: k)
  case Nil
  then show ?case by simp
next
  case (Cons x xs)
  then show ?case by (cases k) auto
qed

lemma idx_append: "a \<in> set xs \<Longrightarrow> idx (xs @ ys) a = idx xs a"
  by (induction xs) auto

lemma idx_snoc_new: "a \<notin> set xs \<Longrightarrow> idx (xs @ [a]) a = length xs"
  by (induction xs) auto

text \<open>A thread's steps come in the order of its code.\<close>
lemma evl_po:
  "(t, j) \<in> set (evl ts) \<Longrightarrow> i < j \<Longrightarrow> idx (evl ts) (t, i) < idx (evl ts) (t, j)"
proof (induction ts rule: rev_induct)
  case Nil
  then show ?case by simp
next
  case (snoc u ts)
  have ti: "(t, i) \<in> set (evl (ts @ [u]))"
    using snoc.prems by (auto simp: set_evl)
  show ?case
  proof (cases "(t, j) \<in> set (evl ts)")
    case True
    then have "(t, i) \<in> set (evl ts)" using snoc.prems(2) by (auto simp: set_evl)
    with True show ?thesis
      using snoc.IH[OF True snoc.prems(2)] by (simp add: idx_append)
  next
    case False
    then have "(t, j) = (u, count_list ts u)"
      using snoc.prems(1) by simp
    then have "(t, i) \<in> set (evl ts)"
      using snoc.prems(2) by (auto simp: set_evl)
    then show ?thesis
      using False \<open>(t, j) = _\<close> idx_nth[of "(t, i)" "evl ts"] distinct_evl[of ts]
      by (simp add: idx_append idx_snoc_new set_evl)
  qed
qed

section \<open>The candidate execution of a complete SC run\<close>

locale sc_run =
  fixes P :: src_program and T :: "tid list"
  assumes valid: "valid P T"
    and final: "\<forall>t \<in> src_threads P. sc_pc (run P T) t \<ge> length (src_code P t)"
begin

lemma count_T: "count_list T t = (if t \<in> src_threads P then length (src_code P t) else 0)"
  using valid_count[OF valid, of t] final run_pc[of P T t] by (auto intro: antisym)

lemma in_evl: "(t, i) \<in> set (evl T) \<longleftrightarrow> t \<in> src_threads P \<and> i < length (src_code P t)"
  by (auto simp: set_evl count_T)

text \<open>The time of an event: the initial writes at 0, step k's read part at
  2k + 1 and its write part at 2k + 2.\<close>
definition k_of :: "tid \<Rightarrow> nat \<Rightarrow> nat" where
  "k_of t i = idx (evl T) (t, i)"

fun stamp :: "sev \<Rightarrow> nat" where
  "stamp (Init x) = 0"
| "stamp (Acc t i p) = 2 * k_of t i + (if p then 2 else 1)"

definition \<sigma> :: "nat \<Rightarrow> sc_state" where
  "\<sigma> k = run P (take k T)"

lemma k_of_evl: "acc P t i p \<Longrightarrow> k_of t i < length T \<and> evl T ! k_of t i = (t, i)"
  unfolding k_of_def using idx_nth[of "(t, i)" "evl T"] in_evl by (auto simp: acc_def)

lemma k_of_step:
  assumes "k < length T"
  shows "k_of (T ! k) (count_list (take k T) (T ! k)) = k"
  using nth_idx[OF distinct_evl, of k T] evl_nth[OF assms] assms by (simp add: k_of_def)

lemma step_acc: "k < length T \<Longrightarrow> T ! k \<in> src_threads P \<and> count_list (take k T) (T ! k) < length (src_code P (T ! k))"
  using valid run_pc[of P "take k T"] unfolding valid_def by auto

lemma \<sigma>_Suc: "k < length T \<Longrightarrow> \<sigma> (Suc k) = sc_do P (T ! k) (\<sigma> k)"
  unfolding \<sigma>_def by (simp add: take_Suc_conv_app_nth)

lemma \<sigma>_pc: "sc_pc (\<sigma> k) t = count_list (take k T) t"
  by (simp add: \<sigma>_def run_pc)

text \<open>The values: a read part reads the memory before its step, a write
  writes the memory after it.\<close>
fun val :: "sev \<Rightarrow> int" where
  "val (Init x) = src_init P x"
| "val (Acc t i p) = (case addr_of (ins P t i) of None \<Rightarrow> 0
     | Some x \<Rightarrow> if wr (ins P t i) p then sc_mem (\<sigma> (Suc (k_of t i))) x else sc_mem (\<sigma> (k_of t i)) x)"

text \<open>The writes of x before time s.\<close>
definition before :: "addr \<Rightarrow> nat \<Rightarrow> sev set" where
  "before x s = {w. is_wr P w \<and> sloc P w = Some x \<and> stamp w < s}"

definition last_before :: "addr \<Rightarrow> nat \<Rightarrow> sev \<Rightarrow> bool" where
  "last_before x s w \<longleftrightarrow> w \<in> before x s \<and> (\<forall>w' \<in> before x s. stamp w' \<le> stamp w)"

lemma stamp_eq: "2 * (a::nat) + (if p then 2 else 1) = 2 * b + (if q then 2 else 1) \<Longrightarrow> p = q \<and> a = b"
  by (auto split: if_splits) presburger+

lemma stamp_inj:
  assumes "is_wr P w \<or> is_rd P w" "is_wr P w' \<or> is_rd P w'" "sloc P w = sloc P w'" "stamp w = stamp w'"
  shows "w = w'"
proof (cases w)
  case (Init x)
  show ?thesis
  proof (cases w')
    case (Init y)
    then show ?thesis using assms(3) \<open>w = Init x\<close> by simp
  next
    case (Acc t i p)
    then show ?thesis using assms(4) \<open>w = Init x\<close> by (simp split: if_splits)
  qed
next
  case (Acc t i p)
  show ?thesis
  proof (cases w')
    case (Init y)
    then show ?thesis using assms(4) \<open>w = Acc t i p\<close> by (simp split: if_splits)
  next
    case (Acc t' i' p')
    from assms(1) have a1: "acc P t i p" unfolding \<open>w = Acc t i p\<close> by auto
    from assms(2) have a2: "acc P t' i' p'" unfolding Acc by auto
    have pk: "p = p' \<and> k_of t i = k_of t' i'"
      using assms(4) Acc \<open>w = Acc t i p\<close> by (intro stamp_eq) simp
    have "(t, i) = (t', i')"
      using k_of_evl[OF a1] k_of_evl[OF a2] pk by metis
    then show ?thesis using pk Acc \<open>w = Acc t i p\<close> by simp
  qed
qed

text \<open>The events of step k.\<close>
lemma stamp_k: "2 * k < 2 * (a::nat) + (if p then 2 else 1) \<Longrightarrow> 2 * a + (if p then 2 else 1) \<le> 2 * k + 2 \<Longrightarrow> a = k"
  by (auto split: if_splits)

lemma stamp_step:
  assumes "is_wr P w \<or> is_rd P w" "2 * k < stamp w" "stamp w \<le> 2 * k + 2"
  shows "\<exists>p. w = Acc (T ! k) (count_list (take k T) (T ! k)) p \<and> k < length T"
proof (cases w)
  case (Init x)
  then show ?thesis using assms(2) by simp
next
  case (Acc t i p)
  have a: "acc P t i p" using assms(1) Acc by auto
  have "k_of t i = k"
    using assms(2,3) Acc by (intro stamp_k[of k _ p]) simp_all
  then have k: "k < length T" and e: "evl T ! k = (t, i)"
    using k_of_evl[OF a] by auto
  have "t = T ! k \<and> i = count_list (take k T) (T ! k)"
    by (metis e evl_nth[OF k] prod.inject)
  then show ?thesis
    using Acc k by blast
qed

lemma exec_mem:
  "sc_mem (sc_exec t c s) y = (if addr_of c = Some y \<and> (wr c False \<or> wr c True) then sc_mem (sc_exec t c s) y else sc_mem s y)"
  by (cases "(t, c, s)" rule: sc_exec.cases) (auto simp: sc_set_reg_def)

text \<open>Step k: thread T ! k performs its next instruction.\<close>
lemma step_k:
  assumes k: "k < length T"
  obtains t i where "T ! k = t" "count_list (take k T) t = i" "t \<in> src_threads P"
    "i < length (src_code P t)" "k_of t i = k"
    "\<sigma> (Suc k) = (sc_exec t (ins P t i) (\<sigma> k))\<lparr>sc_pc := (sc_pc (\<sigma> k))(t := Suc i)\<rparr>"
  using step_acc[OF k] k_of_step[OF k] \<sigma>_Suc[OF k] \<sigma>_pc[of k "T ! k"]
  by (simp add: sc_do_def ins_def)

text \<open>The memory before step k holds, for each location the program
  accesses, the value of the last write of it before the step.\<close>
lemma mem_last:
  "k \<le> length T \<Longrightarrow> x \<in> src_locs P \<Longrightarrow> \<exists>w. last_before x (2 * k + 1) w \<and> sc_mem (\<sigma> k) x = val w"
proof (induction k)
  case 0
  have "last_before x (2 * 0 + 1) (Init x)"
    using 0 by (auto simp: last_before_def before_def)
  moreover have "sc_mem (\<sigma> 0) x = val (Init x)"
    by (simp add: \<sigma>_def sc_initial_def)
  ultimately show ?case by blast
next
  case (Suc k)
  then have k: "k < length T" by simp
  obtain w where w: "last_before x (2 * k + 1) w" "sc_mem (\<sigma> k) x = val w"
    using Suc by auto
  obtain t i where tk: "T ! k = t" and ik: "count_list (take k T) t = i"
    and ti: "t \<in> src_threads P" "i < length (src_code P t)" and kk: "k_of t i = k"
    and s0: "\<sigma> (Suc k) = (sc_exec t (ins P t i) (\<sigma> k))\<lparr>sc_pc := (sc_pc (\<sigma> k))(t := Suc i)\<rparr>"
    using step_k[OF k] by blast
  define c where "c = ins P t i"
  have s: "\<sigma> (Suc k) = (sc_exec t c (\<sigma> k))\<lparr>sc_pc := (sc_pc (\<sigma> k))(t := Suc i)\<rparr>"
    using s0 by (simp add: c_def)
  show ?case
  proof (cases "addr_of c = Some x \<and> (wr c False \<or> wr c True)")
    case True
    then obtain p where p: "wr c p" "addr_of c = Some x" by blast
    have ev: "is_wr P (Acc t i p)" "sloc P (Acc t i p) = Some x"
      using ti p by (auto simp: acc_def c_def)
    have st: "stamp (Acc t i p) = 2 * k + (if p then 2 else 1)"
      by (simp add: kk)
    have lb: "last_before x (2 * Suc k + 1) (Acc t i p)"
      unfolding last_before_def
    proof
      show "Acc t i p \<in> before x (2 * Suc k + 1)"
        using ev st by (auto simp: before_def)
      show "\<forall>w'\<in>before x (2 * Suc k + 1). stamp w' \<le> stamp (Acc t i p)"
      proof
        fix w' assume w': "w' \<in> before x (2 * Suc k + 1)"
        show "stamp w' \<le> stamp (Acc t i p)"
        proof (cases "stamp w' \<le> 2 * k")
          case True
          then show ?thesis using st by simp
        next
          case False
          then obtain q where q: "w' = Acc t i q"
            using stamp_step[of w' k] w' by (auto simp: before_def tk ik)
          have "wr c q" using w' q by (auto simp: before_def c_def)
          then have "q = p" using p by (cases "(c, p)" rule: wr.cases) auto
          then show ?thesis using q by simp
        qed
      qed
    qed
    have "val (Acc t i p) = sc_mem (\<sigma> (Suc k)) x"
      using p kk by (simp add: c_def)
    with lb show ?thesis by auto
  next
    case False
    have "sc_mem (\<sigma> (Suc k)) x = sc_mem (\<sigma> k) x"
      using s exec_mem[of t c "\<sigma> k" x] False by simp
    moreover have "last_before x (2 * Suc k + 1) w"
      unfolding last_before_def
    proof -
      have "\<And>w'. w' \<in> before x (2 * Suc k + 1) \<Longrightarrow> w' \<in> before x (2 * k + 1)"
      proof -
        fix w' assume w': "w' \<in> before x (2 * Suc k + 1)"
        show "w' \<in> before x (2 * k + 1)"
        proof (rule ccontr)
          assume "w' \<notin> before x (2 * k + 1)"
          then have "2 * k < stamp w'" "stamp w' \<le> 2 * k + 2"
            using w' by (auto simp: before_def)
          then obtain q where q: "w' = Acc t i q"
            using stamp_step[of w' k] w' by (auto simp: before_def tk ik)
          then have "wr c q" "addr_of c = Some x"
            using w' by (auto simp: before_def c_def)
          then show False using False by (cases q) auto
        qed
      qed
      moreover have "before x (2 * k + 1) \<subseteq> before x (2 * Suc k + 1)"
        by (auto simp: before_def)
      ultimately show "w \<in> before x (2 * Suc k + 1) \<and> (\<forall>w'\<in>before x (2 * Suc k + 1). stamp w' \<le> stamp w)"
        using w(1) unfolding last_before_def by blast
    qed
    ultimately show ?thesis using w(2) by auto
  qed
qed

lemma mem_other: "x \<notin> src_locs P \<Longrightarrow> sc_mem (\<sigma> k) x = src_init P x"
proof (induction k)
  case 0
  then show ?case by (simp add: \<sigma>_def sc_initial_def)
next
  case (Suc k)
  show ?case
  proof (cases "k < length T")
    case True
    obtain t i where ti: "t \<in> src_threads P" "i < length (src_code P t)"
      and s: "\<sigma> (Suc k) = (sc_exec t (ins P t i) (\<sigma> k))\<lparr>sc_pc := (sc_pc (\<sigma> k))(t := Suc i)\<rparr>"
      using step_k[OF True] by blast
    have "addr_of (ins P t i) \<noteq> Some x"
      using Suc.prems ti by (auto simp: src_locs_def)
    with s show ?thesis
      using Suc exec_mem[of t "ins P t i" "\<sigma> k" x] by auto
  next
    case False
    then have "\<sigma> (Suc k) = \<sigma> k" by (simp add: \<sigma>_def)
    then show ?thesis using Suc by simp
  qed
qed

text \<open>Step k_of t i performs instruction i of thread t.\<close>
lemma step_of:
  assumes "acc P t i p"
  shows "k_of t i < length T \<and> T ! k_of t i = t \<and> count_list (take (k_of t i) T) t = i"
proof -
  have k: "k_of t i < length T" and e: "evl T ! k_of t i = (t, i)"
    using k_of_evl[OF assms] by auto
  have "t = T ! k_of t i \<and> i = count_list (take (k_of t i) T) (T ! k_of t i)"
    by (metis e evl_nth[OF k] prod.inject)
  then show ?thesis using k by auto
qed

lemma \<sigma>_step:
  assumes "acc P t i p"
  shows "\<sigma> (Suc (k_of t i)) = (sc_exec t (ins P t i) (\<sigma> (k_of t i)))\<lparr>sc_pc := (sc_pc (\<sigma> (k_of t i)))(t := Suc i)\<rparr>"
  using step_of[OF assms] \<sigma>_Suc[of "k_of t i"] \<sigma>_pc[of "k_of t i" t]
  by (simp add: sc_do_def ins_def)

lemma exec_regs:
  "sc_regs (sc_exec u c s) t = (if t = u then step_regs c (case addr_of c of Some x \<Rightarrow> sc_mem s x | None \<Rightarrow> 0) (sc_regs s u) else sc_regs s t)"
  by (cases "(u, c, s)" rule: sc_exec.cases) (auto simp: sc_set_reg_def)

lemma step_regs_cong:
  "(\<And>x. addr_of c = Some x \<Longrightarrow> rd c False \<Longrightarrow> a = b) \<Longrightarrow> step_regs c a R = step_regs c b R"
  by (cases "(c, a, R)" rule: step_regs.cases) auto

text \<open>Each thread's registers before step k: its code run on the values its
  reads returned.\<close>
lemma regs_tregs:
  "k \<le> length T \<Longrightarrow> sc_regs (\<sigma> k) t = tregs (src_code P t) (reads_val val t) (count_list (take k T) t)"
proof (induction k)
  case 0
  then show ?case by (simp add: \<sigma>_def sc_initial_def)
next
  case (Suc k)
  then have k: "k < length T" by simp
  obtain u i where uk: "T ! k = u" and ik: "count_list (take k T) u = i" and kk: "k_of u i = k"
    and s: "\<sigma> (Suc k) = (sc_exec u (ins P u i) (\<sigma> k))\<lparr>sc_pc := (sc_pc (\<sigma> k))(u := Suc i)\<rparr>"
    using step_k[OF k] by blast
  have cnt: "count_list (take (Suc k) T) t = (if t = u then Suc i else count_list (take k T) t)"
    using k uk ik by (simp add: take_Suc_conv_app_nth)
  have IH: "sc_regs (\<sigma> k) t = tregs (src_code P t) (reads_val val t) (count_list (take k T) t)"
    using Suc by simp
  show ?case
  proof (cases "t = u")
    case False
    then show ?thesis using s cnt IH exec_regs[of u "ins P u i" "\<sigma> k" t] by simp
  next
    case True
    have rv: "step_regs (ins P u i) (case addr_of (ins P u i) of Some x \<Rightarrow> sc_mem (\<sigma> k) x | None \<Rightarrow> 0) R
        = step_regs (ins P u i) (reads_val val u i) R" for R
    proof (rule step_regs_cong)
      fix x assume x: "addr_of (ins P u i) = Some x" and r: "rd (ins P u i) False"
      have "\<not> wr (ins P u i) False" using rd_wr[OF r] .
      then show "(case addr_of (ins P u i) of Some x \<Rightarrow> sc_mem (\<sigma> k) x | None \<Rightarrow> 0) = reads_val val u i"
        using x kk by (simp add: reads_val_def)
    qed
    have "sc_regs (\<sigma> (Suc k)) t = step_regs (ins P u i) (reads_val val u i) (sc_regs (\<sigma> k) u)"
      using s True exec_regs[of u "ins P u i" "\<sigma> k" u] rv by simp
    also have "\<dots> = tregs (src_code P t) (reads_val val t) (count_list (take (Suc k) T) t)"
      using True IH cnt by (simp add: ins_def ik)
    finally show ?thesis .
  qed
qed

section \<open>The reads-from and coherence of the run\<close>

text \<open>A read reads from the last write of its location before it;
  coherence is the order in which the writes happen.\<close>
definition rfw :: "sev \<Rightarrow> sev" where
  "rfw r = (SOME w. case sloc P r of Some x \<Rightarrow> last_before x (stamp r) w | None \<Rightarrow> True)"

definition co_r :: "sev rel" where
  "co_r = {(w, w'). is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> stamp w < stamp w'}"

lemma rd_acc: "is_rd P r \<Longrightarrow> \<exists>t i x. r = Acc t i False \<and> acc P t i False \<and> rd (ins P t i) False \<and> addr_of (ins P t i) = Some x"
proof (cases r)
  case (Init x)
  then show "is_rd P r \<Longrightarrow> ?thesis" by simp
next
  case (Acc t i p)
  then show "is_rd P r \<Longrightarrow> ?thesis"
    using rd_addr[of "ins P t i" p] rd_part[of "ins P t i" p] by auto
qed

lemma ev_loc: "acc P t i p \<Longrightarrow> addr_of (ins P t i) = Some x \<Longrightarrow> x \<in> src_locs P"
  by (auto simp: acc_def src_locs_def)

lemma rfw_last:
  assumes r: "is_rd P r" and x: "sloc P r = Some x"
  shows "last_before x (stamp r) (rfw r) \<and> val r = val (rfw r)"
proof -
  obtain t i where ti: "r = Acc t i False" "acc P t i False" "rd (ins P t i) False" "addr_of (ins P t i) = Some x"
    using rd_acc[OF r] x by auto
  define k where "k = k_of t i"
  have k: "k < length T" using step_of[OF ti(2)] by (simp add: k_def)
  obtain w where w: "last_before x (2 * k + 1) w" "sc_mem (\<sigma> k) x = val w"
    using mem_last[of k x] k ev_loc[OF ti(2,4)] by auto
  have st: "stamp r = 2 * k + 1" using ti(1) by (simp add: k_def)
  have "last_before x (stamp r) (rfw r)"
    unfolding rfw_def x option.case using someI[of "\<lambda>w. last_before x (stamp r) w" w] w(1) st by simp
  moreover have "rfw r = w"
  proof (rule stamp_inj)
    show "is_wr P (rfw r) \<or> is_rd P (rfw r)" "is_wr P w \<or> is_rd P w"
      using calculation w(1) by (auto simp: last_before_def before_def)
    show "sloc P (rfw r) = sloc P w"
      using calculation w(1) by (auto simp: last_before_def before_def)
    show "stamp (rfw r) = stamp w"
      using calculation w(1) st by (auto simp: last_before_def intro: antisym)
  qed
  moreover have "val r = sc_mem (\<sigma> k) x"
    using ti rd_wr[OF ti(3)] by (simp add: k_def)
  ultimately show ?thesis using w(2) by simp
qed

lemma last_stamp: "acc P t i p \<Longrightarrow> stamp (Acc t i p) < 2 * length T + 1"
  using step_of[of t i p] by auto

theorem run_cand: "cand_ok P rfw co_r val"
  unfolding cand_ok_def
proof (intro conjI)
  show "\<forall>r. is_rd P r \<longrightarrow> is_wr P (rfw r) \<and> sloc P (rfw r) = sloc P r"
  proof (intro allI impI)
    fix r assume r: "is_rd P r"
    then obtain x where x: "sloc P r = Some x"
      using rd_acc[OF r] by auto
    show "is_wr P (rfw r) \<and> sloc P (rfw r) = sloc P r"
      using rfw_last[OF r x] x by (auto simp: last_before_def before_def)
  qed
  show "co_r \<subseteq> {(w, w'). is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> (\<forall>x. w' \<noteq> Init x)}"
    by (auto simp: co_r_def)
  show "trans co_r"
    by (auto simp: co_r_def trans_def)
  show "irrefl co_r"
    by (auto simp: co_r_def irrefl_def)
  show "\<forall>w w'. is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> w \<noteq> w' \<longrightarrow> (w, w') \<in> co_r \<or> (w', w) \<in> co_r"
  proof (intro allI impI)
    fix w w' assume a: "is_wr P w \<and> is_wr P w' \<and> sloc P w = sloc P w' \<and> w \<noteq> w'"
    then have "stamp w \<noteq> stamp w'"
      using stamp_inj[of w w'] by auto
    then show "(w, w') \<in> co_r \<or> (w', w) \<in> co_r"
      using a by (auto simp: co_r_def)
  qed
  show "values_ok P rfw val"
    unfolding values_ok_def
  proof (intro conjI allI impI ballI)
    fix x show "val (Init x) = src_init P x" by simp
  next
    fix r assume r: "is_rd P r"
    then obtain x where x: "sloc P r = Some x"
      using rd_acc[OF r] by auto
    show "val r = val (rfw r)" using rfw_last[OF r x] by simp
  next
    fix t i r x sc rm
    assume a: "acc P t i False" and c: "ins P t i = Op (Store sc rm) r x"
    have "val (Acc t i False) = sc_mem (\<sigma> (Suc (k_of t i))) x"
      using c by simp
    also have "\<dots> = sc_regs (\<sigma> (k_of t i)) t r"
      using \<sigma>_step[OF a] c by simp
    also have "\<dots> = tregs (src_code P t) (reads_val val t) i r"
      using regs_tregs[of "k_of t i" t] step_of[OF a] by simp
    finally show "val (Acc t i False) = tregs (src_code P t) (reads_val val t) i r" .
  next
    fix t i assume a: "acc P t i True"
    then obtain sc rm r x where c: "ins P t i = Op (FetchInc sc rm) r x"
      using wr_part[of "ins P t i"] rd_part[of "ins P t i" True] by (auto simp: acc_def)
    have "val (Acc t i True) = sc_mem (\<sigma> (Suc (k_of t i))) x"
      using c by simp
    also have "\<dots> = sc_mem (\<sigma> (k_of t i)) x + 1"
      using \<sigma>_step[OF a] c by (simp add: sc_set_reg_def)
    finally show "val (Acc t i True) = val (Acc t i False) + 1"
      using c by simp
  qed
qed

lemma ev_stamp: "is_wr P w \<or> is_rd P w \<Longrightarrow> stamp w < 2 * length T + 1"
proof (cases w)
  case (Init x)
  then show ?thesis by simp
next
  case (Acc t i p)
  then show "is_wr P w \<or> is_rd P w \<Longrightarrow> ?thesis"
    using last_stamp[of t i p] by auto
qed

lemma run_T: "run P T = \<sigma> (length T)"
  by (simp add: \<sigma>_def)

text \<open>The run's outcome is the candidate's.\<close>
theorem run_outcome: "is_outcome P co_r val (sc_regs (run P T), sc_mem (run P T))"
  unfolding is_outcome_def
proof (intro conjI allI impI ballI)
  show "fst (sc_regs (run P T), sc_mem (run P T)) = src_regs P val"
  proof (rule ext)
    fix t
    show "fst (sc_regs (run P T), sc_mem (run P T)) t = src_regs P val t"
      using regs_tregs[of "length T" t] count_T[of t] by (simp add: run_T src_regs_def)
  qed
next
  fix x assume "x \<notin> src_locs P"
  then show "snd (sc_regs (run P T), sc_mem (run P T)) x = src_init P x"
    using mem_other by (simp add: run_T)
next
  fix x assume x: "x \<in> src_locs P"
  obtain w where w: "last_before x (2 * length T + 1) w" "sc_mem (\<sigma> (length T)) x = val w"
    using mem_last[of "length T" x] x by auto
  have "\<forall>w'. (w, w') \<notin> co_r"
  proof (intro allI notI)
    fix w' assume c: "(w, w') \<in> co_r"
    then have w': "is_wr P w'" "sloc P w' = Some x" "stamp w < stamp w'"
      using w(1) by (auto simp: co_r_def last_before_def before_def)
    then have "w' \<in> before x (2 * length T + 1)"
      using ev_stamp[of w'] by (simp add: before_def)
    then show False
      using w(1) w'(3) by (auto simp: last_before_def)
  qed
  then show "\<exists>w. is_wr P w \<and> sloc P w = Some x \<and> (\<forall>w'. (w, w') \<notin> co_r) \<and> snd (sc_regs (run P T), sc_mem (run P T)) x = val w"
    using w by (auto simp: run_T last_before_def before_def)
qed

text \<open>The run has finitely many events (its steps, and the locations they
  access), even where the program names infinitely many threads.\<close>
lemma finite_events: "finite (Collect (is_ev P))"
proof -
  define S where "S = set (evl T)"
  have fin: "finite S" by (simp add: S_def)
  have locs: "src_locs P \<subseteq> (\<lambda>(t, i). the (addr_of (ins P t i))) ` S"
  proof
    fix x assume "x \<in> src_locs P"
    then obtain t i where "t \<in> src_threads P" "i < length (src_code P t)" "addr_of (ins P t i) = Some x"
      by (auto simp: src_locs_def)
    then show "x \<in> (\<lambda>(t, i). the (addr_of (ins P t i))) ` S"
      using in_evl by (force simp: S_def)
  qed
  have "Collect (is_ev P) \<subseteq> Init ` src_locs P \<union> (\<lambda>((t, i), p). Acc t i p) ` (S \<times> UNIV)"
  proof
    fix e assume e: "e \<in> Collect (is_ev P)"
    show "e \<in> Init ` src_locs P \<union> (\<lambda>((t, i), p). Acc t i p) ` (S \<times> UNIV)"
    proof (cases e)
      case (Init x)
      then show ?thesis using e by auto
    next
      case (Acc t i p)
      then have "(t, i) \<in> S" using e in_evl by (auto simp: S_def acc_def)
      then show ?thesis using Acc by force
    qed
  qed
  moreover have "finite (Init ` src_locs P \<union> (\<lambda>((t, i), p). Acc t i p) ` (S \<times> UNIV))"
    using finite_subset[OF locs] fin by simp
  ultimately show ?thesis by (rule finite_subset)
qed

lemma finite_atomics: "finite (atomics (src_exec L P rfw co_r))"
proof -
  have "atomics (src_exec L P rfw co_r) \<subseteq> enc ` Collect (is_ev P)"
    by (auto simp: atomics_def tag_def src_exec_def src_tags_def)
  then show ?thesis using finite_events finite_subset by blast
qed

section \<open>The run's execution is SC-consistent\<close>

text \<open>Every edge of sc_order goes forward in time.\<close>
definition tsn :: "event \<Rightarrow> nat" where
  "tsn n = stamp (dec n)"

definition later :: "event rel" where
  "later = {(a, b). tsn a < tsn b}"

lemma later_trans: "trans later"
  by (auto simp: trans_def later_def)

lemma later_trancl: "r \<subseteq> later \<Longrightarrow> r\<^sup>+ \<subseteq> later"
  using trancl_mono[of _ r later] trancl_id[OF later_trans] by blast

lemma lift_later: "(\<And>a b. (a, b) \<in> r \<Longrightarrow> stamp a < stamp b) \<Longrightarrow> lift r \<subseteq> later"
  by (auto simp: lift_def later_def tsn_def)

lemma po_later: "po (src_exec L P rfw co_r) \<subseteq> later"
proof -
  have "lift (src_po P) \<subseteq> later"
  proof (rule lift_later)
    fix a b assume "(a, b) \<in> src_po P"
    then obtain t i p j q where ab: "a = Acc t i p" "b = Acc t j q" "acc P t i p" "acc P t j q"
      "i < j \<or> (i = j \<and> \<not> p \<and> q)"
      by (auto simp: src_po_def)
    show "stamp a < stamp b"
    proof (cases "i < j")
      case True
      have "(t, j) \<in> set (evl T)"
        using ab(4) in_evl by (auto simp: acc_def)
      then have "k_of t i < k_of t j"
        using evl_po True by (simp add: k_of_def)
      then show ?thesis using ab(1,2) by auto
    next
      case False
      then show ?thesis using ab by auto
    qed
  qed
  then show ?thesis
    unfolding po_def by (simp add: src_exec_def later_trancl)
qed

lemma rf_later: "rf (src_exec L P rfw co_r) \<subseteq> later"
proof -
  have "lift {(rfw r, r) | r. is_rd P r} \<subseteq> later"
  proof (rule lift_later)
    fix a b assume "(a, b) \<in> {(rfw r, r) | r. is_rd P r}"
    then have b: "is_rd P b" "a = rfw b" by auto
    then obtain x where x: "sloc P b = Some x"
      using rd_acc[OF b(1)] by auto
    show "stamp a < stamp b"
      using rfw_last[OF b(1) x] b(2) by (auto simp: last_before_def before_def)
  qed
  then show ?thesis by (simp add: src_exec_def)
qed

lemma co_lift: "co (src_exec L P rfw co_r) = lift co_r"
proof -
  have "trans co_r" by (auto simp: co_r_def trans_def)
  then show ?thesis
    unfolding co_def by (simp add: src_exec_def lift_trans trancl_id)
qed

lemma co_later: "co (src_exec L P rfw co_r) \<subseteq> later"
  unfolding co_lift by (rule lift_later) (auto simp: co_r_def)

lemma fr_later: "fr (src_exec L P rfw co_r) \<subseteq> later"
proof
  fix p assume "p \<in> fr (src_exec L P rfw co_r)"
  then obtain a b c where p: "p = (a, c)" "(b, a) \<in> rf (src_exec L P rfw co_r)"
    "(b, c) \<in> co (src_exec L P rfw co_r)"
    by (auto simp: fr_def conv_def)
  then obtain r where r: "is_rd P r" "a = enc r" "b = enc (rfw r)"
    by (auto simp: src_exec_def lift_def)
  obtain w1 w' where c: "b = enc w1" "c = enc w'" "(w1, w') \<in> co_r"
    using p(3) unfolding co_lift by (auto simp: lift_def)
  have w1: "w1 = rfw r" using r(3) c(1) by (auto dest: enc_inj)
  obtain x where x: "sloc P r = Some x"
    using rd_acc[OF r(1)] by auto
  have lb: "last_before x (stamp r) (rfw r)"
    using rfw_last[OF r(1) x] by simp
  have w': "is_wr P w'" "sloc P w' = Some x" "stamp (rfw r) < stamp w'"
    using c(3) w1 lb by (auto simp: co_r_def last_before_def before_def)
  have "stamp r < stamp w'"
  proof (rule ccontr)
    assume "\<not> stamp r < stamp w'"
    then consider "stamp w' < stamp r" | "stamp w' = stamp r" by linarith
    then show False
    proof cases
      case 1
      then have "w' \<in> before x (stamp r)" using w' by (simp add: before_def)
      then show False using lb w'(3) by (auto simp: last_before_def)
    next
      case 2
      then have "w' = r"
        using stamp_inj[of w' r] w' r(1) x by simp
      then show False
        using w'(1) r(1) rd_acc[OF r(1)] rd_wr by auto
    qed
  qed
  then show "p \<in> later" using p(1) r(2) c(2) by (simp add: later_def tsn_def)
qed

theorem run_sc: "sc_consistent (src_exec L P rfw co_r)"
  unfolding sc_consistent_def
proof
  have "sc_order (src_exec L P rfw co_r) \<subseteq> later"
    unfolding sc_order_def using po_later rf_later co_later fr_later by blast
  then have "(sc_order (src_exec L P rfw co_r))\<^sup>+ \<subseteq> later"
    by (rule later_trancl)
  then show "acyclic (sc_order (src_exec L P rfw co_r))"
    by (auto simp: acyclic_def later_def)
  show "atomicity_violation (src_exec L P rfw co_r) = {}"
  proof (rule equals0I)
    fix p assume "p \<in> atomicity_violation (src_exec L P rfw co_r)"
    then obtain a b c where p: "p = (a, c)" "(a, c) \<in> rmw (src_exec L P rfw co_r)"
      "(a, b) \<in> fr (src_exec L P rfw co_r)" "(b, c) \<in> co (src_exec L P rfw co_r)"
      by (auto simp: atomicity_violation_def)
    have "tsn c = Suc (tsn a)"
      using p(2) by (auto simp: src_exec_def lift_def src_rmw_def tsn_def)
    moreover have "tsn a < tsn b" "tsn b < tsn c"
      using p(3,4) fr_later co_later by (auto simp: later_def)
    ultimately show False by simp
  qed
qed

end

section \<open>Every SC outcome is an outcome of an SC-consistent candidate\<close>

text \<open>The same for every model that accepts the SC-consistent candidates
  (finitely many atomics, no dependencies), whatever their tags.\<close>
theorem sc_outcomes_within:
  assumes C: "\<And>X. finite (atomics X) \<Longrightarrow> data X \<union> ctrl X \<subseteq> po X \<Longrightarrow> sc_consistent X \<Longrightarrow> C X"
  shows "sc_outcomes P \<subseteq> src_allowed C L P"
proof
  fix ob assume "ob \<in> sc_outcomes P"
  then obtain s where s: "(sc_initial P, s) \<in> (sc_step P)\<^sup>*"
    "\<forall>t \<in> src_threads P. sc_pc s t \<ge> length (src_code P t)" "ob = (sc_regs s, sc_mem s)"
    by (auto simp: sc_outcomes_def)
  obtain T where T: "valid P T" "run P T = s"
    using steps_run[OF s(1)] by blast
  interpret sc_run P T
    using T s(2) by unfold_locales simp_all
  have "C (src_exec L P rfw co_r)"
    using C[OF finite_atomics _ run_sc] by (simp add: src_exec_def)
  then show "ob \<in> src_allowed C L P"
    unfolding src_allowed_def using run_cand run_outcome s(3) T(2) by blast
qed

theorem sc_outcomes_allowed: "sc_outcomes P \<subseteq> src_allowed sc_consistent L P"
  by (rule sc_outcomes_within)

section \<open>A check that the candidates constrain\<close>

text \<open>A thread that stores 1 to x and then loads x reads 1 in every
  SC-consistent candidate: reading the initial write instead would put the
  load from-reads-before the store that program order puts before it. (If
  the candidates let a read's value differ from its write's, or coherence
  leave writes unordered, this would not follow.)\<close>
definition own_store :: src_program where
  "own_store = \<lparr>src_threads = {0},
     src_code = (\<lambda>t. [SetReg 0 1, Op (Store NonAtomic False) 0 0, Op (Load NonAtomic False) 1 0]),
     src_init = (\<lambda>x. 0)\<rparr>"

lemma own_store_writes: "is_wr own_store w \<Longrightarrow> sloc own_store w = Some 0 \<Longrightarrow> w = Init 0 \<or> w = Acc 0 1 False"
proof (cases w)
  case (Init x)
  then show "is_wr own_store w \<Longrightarrow> sloc own_store w = Some 0 \<Longrightarrow> ?thesis" by simp
next
  case (Acc t i p)
  assume "is_wr own_store w"
  then have "t = 0" "i < 3" "wr (ins own_store t i) p"
    using Acc by (auto simp: acc_def own_store_def)
  moreover have "i = 0 \<or> i = 1 \<or> i = 2" using calculation(2) by auto
  ultimately show ?thesis
    using Acc by (auto simp: ins_def own_store_def)
qed

lemma own_store_reads_1:
  assumes "ob \<in> src_allowed sc_consistent L own_store"
  shows "fst ob 0 1 = 1"
proof -
  obtain rfw co_s v where c: "cand_ok own_store rfw co_s v"
    and sc: "sc_consistent (src_exec L own_store rfw co_s)" and o: "is_outcome own_store co_s v ob"
    using assms by (auto simp: src_allowed_def)
  let ?X = "src_exec L own_store rfw co_s"
  let ?r = "Acc 0 2 False" and ?s = "Acc 0 1 False"
  have sel: "rf ?X = lift {(rfw r, r) | r. is_rd own_store r}" "co_imm ?X = lift co_s"
    "po_imm ?X = lift (src_po own_store)"
    by (simp_all add: src_exec_def)
  have locs: "0 \<in> src_locs own_store"
    unfolding src_locs_def
    by (rule CollectI, rule bexI[of _ 0], rule exI[of _ 1]) (simp_all add: ins_def own_store_def)
  have rd: "is_rd own_store ?r" and wr: "is_wr own_store ?s"
    by (simp_all add: acc_def own_store_def ins_def)
  have w: "is_wr own_store (rfw ?r)" "sloc own_store (rfw ?r) = Some 0"
    using c rd by (auto simp: cand_ok_def ins_def own_store_def)
  have val: "v ?r = v (rfw ?r)"
    using c rd by (auto simp: cand_ok_def values_ok_def)
  have "fst ob = src_regs own_store v"
    using o by (simp add: is_outcome_def)
  then have "fst ob 0 1 = v ?r"
    by (simp add: src_regs_def reads_val_def own_store_def numeral_3_eq_3 numeral_2_eq_2)
  moreover have "rfw ?r = ?s"
  proof (rule ccontr)
    assume "rfw ?r \<noteq> ?s"
    then have i: "rfw ?r = Init 0" using own_store_writes[OF w] by blast
    have iw: "is_wr own_store (Init 0)" using locs by simp
    have "(Init 0, ?s) \<in> co_s"
    proof -
      have "(Init 0, ?s) \<in> co_s \<or> (?s, Init 0) \<in> co_s"
        using c iw wr by (auto simp: cand_ok_def ins_def own_store_def)
      moreover have "(?s, Init 0) \<notin> co_s"
        using c by (auto simp: cand_ok_def)
      ultimately show ?thesis by blast
    qed
    then have "(enc (Init 0), enc ?s) \<in> co ?X"
      unfolding co_def sel(2) by (intro r_into_trancl lift_mem)
    moreover have "(enc ?r, enc (Init 0)) \<in> conv (rf ?X)"
    proof -
      have "(rfw ?r, ?r) \<in> {(rfw r, r) | r. is_rd own_store r}" using rd by blast
      then have "(enc (rfw ?r), enc ?r) \<in> rf ?X" unfolding sel(1) by (rule lift_mem)
      then show ?thesis using conv_mem i by metis
    qed
    ultimately have "(enc ?r, enc ?s) \<in> fr ?X"
      unfolding fr_def by blast
    moreover have "(enc ?s, enc ?r) \<in> po ?X"
    proof -
      have "(?s, ?r) \<in> src_po own_store"
      proof -
        have a: "acc own_store 0 1 False" "acc own_store 0 2 False"
          using rd wr by simp_all
        show ?thesis
          unfolding src_po_def by (rule CollectI, intro exI conjI, rule refl) (use a in simp_all)
      qed
      then show ?thesis unfolding po_def sel(3) by (intro r_into_trancl lift_mem)
    qed
    ultimately have "(enc ?r, enc ?r) \<in> (sc_order ?X)\<^sup>+"
      unfolding sc_order_def by (meson UnI1 UnI2 r_into_trancl trancl_trans)
    then show False using sc by (simp add: sc_consistent_def acyclic_def)
  qed
  moreover have "v ?s = 1"
  proof -
    have vo: "values_ok own_store rfw v" using c by (simp add: cand_ok_def)
    have a: "acc own_store 0 1 False" using wr by simp
    have i: "ins own_store 0 1 = Op (Store NonAtomic False) 0 0" by (simp add: ins_def own_store_def)
    have "v ?s = tregs (src_code own_store 0) (reads_val v 0) 1 0"
      using vo a i unfolding values_ok_def by blast
    then show ?thesis by (simp add: own_store_def)
  qed
  ultimately show ?thesis using val by simp
qed

section \<open>SC, HRF-direct and HRF-indirect as source models\<close>

text \<open>SC allows the outcomes of its consistent candidates and calls no
  program racy; HRF-direct and HRF-indirect allow the outcomes of their
  consistent (SC) candidates and call a program racy when one of them has a
  heterogeneous race ([HRF14]). Each allows every SC outcome, so each is an
  sc_source_model, and Hrf_Simulation's theorems hold against it.\<close>
interpretation sc_source: sc_source_model "src_allowed sc_consistent" "\<lambda>L P. False"
  by unfold_locales (rule sc_outcomes_allowed)

interpretation hrf_direct_source:
  sc_source_model "src_allowed hrf_direct_consistent" "src_racy hrf_direct_consistent hrf_direct_race"
  by unfold_locales (simp add: hrf_direct_consistent_def[abs_def] sc_outcomes_allowed)

interpretation hrf_indirect_source:
  sc_source_model "src_allowed hrf_indirect_consistent" "src_racy hrf_indirect_consistent hrf_indirect_race"
  by unfold_locales (simp add: hrf_indirect_consistent_def[abs_def] sc_outcomes_allowed)

text \<open>HRF-direct-relaxed and HRF-indirect-relaxed ([HRFR15], as hrf exports
  them) accept every SC-consistent candidate (Hrf_Lattice, the model
  lattice), so they too allow every SC outcome; racy: a consistent
  candidate with a heterogeneous race.\<close>
interpretation hrf_direct_relaxed_source:
  sc_source_model "src_allowed hrf_direct_relaxed_consistent"
    "src_racy hrf_direct_relaxed_consistent hrf_direct_relaxed_heterogeneous_race"
  by unfold_locales (rule sc_outcomes_within, rule sc_hrf_direct_relaxed_consistent)

interpretation hrf_indirect_relaxed_source:
  sc_source_model "src_allowed hrf_indirect_relaxed_consistent"
    "src_racy hrf_indirect_relaxed_consistent hrf_indirect_relaxed_heterogeneous_race"
  by unfold_locales (rule sc_outcomes_within, rule sc_hrf_indirect_relaxed_consistent)

end
