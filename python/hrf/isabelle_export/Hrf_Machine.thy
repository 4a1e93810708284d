(* hrf base theory: the operational GPU machine of ([RSP15] sec. 5,
   Fig. 4 and Table 1), written by hand next to rust/src/machine/step.rs.
   No step of the machine has more than one successor: each instruction
   and each environment step is a function state => state option, None
   when the step is blocked; the transition relation `step` collects them.
   A run is a list of labelled steps (one per step of a trace of hrf's
   explorer), evaluated by `run`; `run_outcome` turns a run that evaluates
   to a final state into a reachable final state. *)
theory Hrf_Machine
  imports Main
begin

type_synonym addr = nat
type_synonym reg = nat
type_synonym tid = nat   (* thread (work-item) *)
type_synonym wid = nat   (* work-group *)
type_synonym did = nat   (* device *)

text \<open>Scopes of flushes, invalidations and rmw locks: the work-group, the
  device, or every device ([RSP15]'s ALL, here SYS).\<close>
datatype scope = WG | DV | SYS

datatype hygiene = Clean | Dirty
datatype freshness = Valid | Invalid

text \<open>A cache entry: value, hygiene, freshness; an absent entry is None.\<close>
type_synonym entry = "int \<times> hygiene \<times> freshness"

text \<open>A fifo holds addresses and FLUSH markers; the marker of thread t
  stands for [RSP15]'s FLUSH(d,w,t): t determines d and w.\<close>
datatype fifo_el = Addr addr | Flush tid

text \<open>Where threads are: the work-group of each thread, the device of each
  work-group, and the work-groups and devices there are.\<close>
record layout =
  wg_of :: "tid \<Rightarrow> wid"
  dev_of :: "wid \<Rightarrow> did"
  wgs :: "wid set"
  devs :: "did set"

record state =
  mem :: "addr \<Rightarrow> int"
  l2 :: "did \<Rightarrow> addr \<Rightarrow> entry option"
  l2_fifo :: "did \<Rightarrow> fifo_el list"
  lockfile :: "did \<Rightarrow> addr \<Rightarrow> tid option"
  l1 :: "wid \<Rightarrow> addr \<Rightarrow> entry option"
  l1_fifo :: "wid \<Rightarrow> fifo_el list"
  rmw_lock :: "wid \<Rightarrow> tid option"
  regs :: "tid \<Rightarrow> reg \<Rightarrow> int"
  pc :: "tid \<Rightarrow> nat"

text \<open>Expressions over a thread's registers, with C's operators: a
  comparison or a logical operator is 1 or 0. (hrf's explorer computes on
  64-bit integers that wrap; here integers do not: the two agree while no
  value leaves the 64-bit range.)\<close>
datatype binop = BAdd | BSub | BMul | BAnd | BOr | BXor | BEq | BNe | BLt | BLe | BGt | BGe | BLAnd | BLOr
datatype expr = EC int | ER reg | ENot expr | ENeg expr | EBin binop expr expr

fun binop_val :: "binop \<Rightarrow> int \<Rightarrow> int \<Rightarrow> int" where
  "binop_val BAdd a b = a + b"
| "binop_val BSub a b = a - b"
| "binop_val BMul a b = a * b"
| "binop_val BAnd a b = Bit_Operations.and a b"
| "binop_val BOr a b = Bit_Operations.or a b"
| "binop_val BXor a b = Bit_Operations.xor a b"
| "binop_val BEq a b = of_bool (a = b)"
| "binop_val BNe a b = of_bool (a \<noteq> b)"
| "binop_val BLt a b = of_bool (a < b)"
| "binop_val BLe a b = of_bool (a \<le> b)"
| "binop_val BGt a b = of_bool (a > b)"
| "binop_val BGe a b = of_bool (a \<ge> b)"
| "binop_val BLAnd a b = of_bool (a \<noteq> 0 \<and> b \<noteq> 0)"
| "binop_val BLOr a b = of_bool (a \<noteq> 0 \<or> b \<noteq> 0)"

fun eval_expr :: "(reg \<Rightarrow> int) \<Rightarrow> expr \<Rightarrow> int" where
  "eval_expr rs (EC v) = v"
| "eval_expr rs (ER r) = rs r"
| "eval_expr rs (ENot a) = of_bool (eval_expr rs a = 0)"
| "eval_expr rs (ENeg a) = - eval_expr rs a"
| "eval_expr rs (EBin f a b) = binop_val f (eval_expr rs a) (eval_expr rs b)"

text \<open>The instructions of [RSP15] Table 1, hrf's INVL2, and register code:
  MOV r e; BNZ e target (taken when e is not 0); JMP target; CUT, where a
  path ends at hrf's loop-unrolling bound (it never steps).\<close>
datatype instr =
    LD reg addr | ST expr addr | INCL1 reg addr | INCL2 reg addr
  | FLUL1 scope | FLUL2 scope | INVL1 scope | INVL2 scope
  | LK addr | UNLK addr | LKrmw scope | UNLKrmw scope
  | MOV reg expr | BNZ expr nat | JMP nat | CUT

record program =
  threads :: "tid set"
  instrs :: "tid \<Rightarrow> instr list"

section \<open>Scopes over the layout\<close>

definition wgs_in :: "layout \<Rightarrow> scope \<Rightarrow> wid \<Rightarrow> wid set" where
  "wgs_in L s w = (case s of
      WG \<Rightarrow> {w}
    | DV \<Rightarrow> Set.filter (\<lambda>v. dev_of L v = dev_of L w) (wgs L)
    | SYS \<Rightarrow> wgs L)"

definition devs_in :: "layout \<Rightarrow> scope \<Rightarrow> did \<Rightarrow> did set" where
  "devs_in L s d = (case s of SYS \<Rightarrow> devs L | _ \<Rightarrow> {d})"

section \<open>Helpers\<close>

definition readable :: "entry option \<Rightarrow> bool" where
  "readable e = (case e of Some (_, _, Valid) \<Rightarrow> True | _ \<Rightarrow> False)"

definition val_of :: "entry option \<Rightarrow> int" where
  "val_of e = (case e of Some (v, _, _) \<Rightarrow> v | None \<Rightarrow> 0)"

definition invalidate :: "entry option \<Rightarrow> entry option" where
  "invalidate e = (case e of Some (v, h, _) \<Rightarrow> Some (v, h, Invalid) | None \<Rightarrow> None)"

text \<open>unflushed: a FLUSH marker of thread t is still in some fifo ([RSP15] 5.2);
  every instruction of t waits while it is.\<close>
definition unflushed :: "layout \<Rightarrow> state \<Rightarrow> tid \<Rightarrow> bool" where
  "unflushed L s t \<longleftrightarrow>
     (\<exists>w \<in> wgs L. Flush t \<in> set (l1_fifo s w)) \<or> (\<exists>d \<in> devs L. Flush t \<in> set (l2_fifo s d))"

definition set_reg :: "tid \<Rightarrow> reg \<Rightarrow> int \<Rightarrow> state \<Rightarrow> state" where
  "set_reg t r v s = s\<lparr>regs := (regs s)(t := (regs s t)(r := v))\<rparr>"

definition set_l1 :: "wid \<Rightarrow> addr \<Rightarrow> entry option \<Rightarrow> state \<Rightarrow> state" where
  "set_l1 w x e s = s\<lparr>l1 := (l1 s)(w := (l1 s w)(x := e))\<rparr>"

definition set_l2 :: "did \<Rightarrow> addr \<Rightarrow> entry option \<Rightarrow> state \<Rightarrow> state" where
  "set_l2 d x e s = s\<lparr>l2 := (l2 s)(d := (l2 s d)(x := e))\<rparr>"

definition enq_l1 :: "wid \<Rightarrow> fifo_el \<Rightarrow> state \<Rightarrow> state" where
  "enq_l1 w e s = s\<lparr>l1_fifo := (l1_fifo s)(w := l1_fifo s w @ [e])\<rparr>"

definition enq_l2 :: "did \<Rightarrow> fifo_el \<Rightarrow> state \<Rightarrow> state" where
  "enq_l2 d e s = s\<lparr>l2_fifo := (l2_fifo s)(d := l2_fifo s d @ [e])\<rparr>"

definition set_pc :: "tid \<Rightarrow> nat \<Rightarrow> state \<Rightarrow> state" where
  "set_pc t n s = s\<lparr>pc := (pc s)(t := n)\<rparr>"

section \<open>Instructions ([RSP15] Table 1; [RSP15] sec. 5)\<close>

text \<open>exec L t i s: the state after thread t executes i in s, its pc not
  yet advanced (step_thread does that, or a branch sets it); None: blocked.\<close>
fun exec :: "layout \<Rightarrow> tid \<Rightarrow> instr \<Rightarrow> state \<Rightarrow> state option" where
  \<comment> \<open>LD r x: L1(x) valid: r := its value; else block (the environment fetches).\<close>
  "exec L t (LD r x) s =
     (let e = l1 s (wg_of L t) x in if readable e then Some (set_reg t r (val_of e) s) else None)"
  \<comment> \<open>ST e x: L1(x) dirty and invalid: block; else write e's value dirty and valid, enqueue x.\<close>
| "exec L t (ST v x) s =
     (let w = wg_of L t in
      if l1 s w x = Some (val_of (l1 s w x), Dirty, Invalid) then None
      else Some (enq_l1 w (Addr x) (set_l1 w x (Some (eval_expr (regs s t) v, Dirty, Valid)) s)))"
  \<comment> \<open>INCL1 r x: atomic increment at L1 (entry valid; old value to r; enqueue x).\<close>
| "exec L t (INCL1 r x) s =
     (let w = wg_of L t; e = l1 s w x in
      if readable e
      then Some (enq_l1 w (Addr x) (set_l1 w x (Some (val_of e + 1, Dirty, Valid)) (set_reg t r (val_of e) s)))
      else None)"
  \<comment> \<open>INCL2 r x: the same at the device's L2.\<close>
| "exec L t (INCL2 r x) s =
     (let d = dev_of L (wg_of L t); e = l2 s d x in
      if readable e
      then Some (enq_l2 d (Addr x) (set_l2 d x (Some (val_of e + 1, Dirty, Valid)) (set_reg t r (val_of e) s)))
      else None)"
  \<comment> \<open>FLUL1 s: t's FLUSH marker on the L1 fifo of every work-group in scope s.\<close>
| "exec L t (FLUL1 sc) s =
     Some (s\<lparr>l1_fifo := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then l1_fifo s w @ [Flush t] else l1_fifo s w)\<rparr>)"
  \<comment> \<open>FLUL2 s: on the L2 fifo of every device in scope s.\<close>
| "exec L t (FLUL2 sc) s =
     Some (s\<lparr>l2_fifo := (\<lambda>d. if d \<in> devs_in L sc (dev_of L (wg_of L t)) then l2_fifo s d @ [Flush t] else l2_fifo s d)\<rparr>)"
  \<comment> \<open>INVL1 s: every entry of the L1 caches in scope s becomes INVALID.\<close>
| "exec L t (INVL1 sc) s =
     Some (s\<lparr>l1 := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then invalidate \<circ> l1 s w else l1 s w)\<rparr>)"
  \<comment> \<open>INVL2 s (hrf's extension): the same for the L2 caches in scope s.\<close>
| "exec L t (INVL2 sc) s =
     Some (s\<lparr>l2 := (\<lambda>d. if d \<in> devs_in L sc (dev_of L (wg_of L t)) then invalidate \<circ> l2 s d else l2 s d)\<rparr>)"
  \<comment> \<open>LK x / UNLK x: take (block if held) / release x in the device's lock file.\<close>
| "exec L t (LK x) s =
     (let d = dev_of L (wg_of L t) in
      if lockfile s d x = None then Some (s\<lparr>lockfile := (lockfile s)(d := (lockfile s d)(x := Some t))\<rparr>) else None)"
| "exec L t (UNLK x) s =
     (let d = dev_of L (wg_of L t) in
      if lockfile s d x = Some t then Some (s\<lparr>lockfile := (lockfile s)(d := (lockfile s d)(x := None))\<rparr>) else None)"
  \<comment> \<open>LKrmw s / UNLKrmw s: take (block if any is held) / release every rmw lock in scope s.\<close>
| "exec L t (LKrmw sc) s =
     (if \<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s w = None
      then Some (s\<lparr>rmw_lock := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then Some t else rmw_lock s w)\<rparr>)
      else None)"
| "exec L t (UNLKrmw sc) s =
     (if \<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s w = Some t
      then Some (s\<lparr>rmw_lock := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then None else rmw_lock s w)\<rparr>)
      else None)"
| "exec L t (MOV r v) s = Some (set_reg t r (eval_expr (regs s t) v) s)"
| "exec L t (BNZ v n) s = Some s"
| "exec L t (JMP n) s = Some s"
| "exec L t CUT s = None"

text \<open>The pc after an instruction: a taken branch or a jump sets it.\<close>
definition next_pc :: "tid \<Rightarrow> instr \<Rightarrow> state \<Rightarrow> nat" where
  "next_pc t i s = (case i of
      BNZ v n \<Rightarrow> if eval_expr (regs s t) v \<noteq> 0 then n else Suc (pc s t)
    | JMP n \<Rightarrow> n
    | _ \<Rightarrow> Suc (pc s t))"

definition step_thread :: "layout \<Rightarrow> program \<Rightarrow> tid \<Rightarrow> state \<Rightarrow> state option" where
  "step_thread L P t s =
     (if t \<notin> threads P \<or> pc s t \<ge> length (instrs P t) \<or> unflushed L s t then None
      else (let i = instrs P t ! pc s t in map_option (set_pc t (next_pc t i s)) (exec L t i s)))"

section \<open>Environment steps ([RSP15] sec. 5)\<close>

text \<open>Fetches into and write-backs from an L1 wait while the address is
  locked in the device's lock file by a thread of another work-group.\<close>
definition locked_out :: "layout \<Rightarrow> state \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> bool" where
  "locked_out L s w x \<longleftrightarrow> (case lockfile s (dev_of L w) x of None \<Rightarrow> False | Some t \<Rightarrow> wg_of L t \<noteq> w)"

text \<open>Fetch x into L1 from L2: L1(x) absent or clean-invalid, L2(x) valid.\<close>
definition fetch_l1 :: "layout \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> state \<Rightarrow> state option" where
  "fetch_l1 L w x s =
     (if (l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid))
         \<and> readable (l2 s (dev_of L w) x) \<and> \<not> locked_out L s w x
      then Some (set_l1 w x (Some (val_of (l2 s (dev_of L w) x), Clean, Valid)) s) else None)"

text \<open>Fetch x into L2 from memory: L2(x) not dirty.\<close>
definition fetch_l2 :: "did \<Rightarrow> addr \<Rightarrow> state \<Rightarrow> state option" where
  "fetch_l2 d x s =
     (if l2 s d x = Some (val_of (l2 s d x), Dirty, Valid) \<or> l2 s d x = Some (val_of (l2 s d x), Dirty, Invalid)
      then None else Some (set_l2 d x (Some (mem s x, Clean, Valid)) s))"

text \<open>Write a dirty L1 line to the device's L2 (dirty there, enqueued on the
  L2 fifo); the L1 line becomes clean.\<close>
definition write_back_l1 :: "layout \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> state \<Rightarrow> state" where
  "write_back_l1 L w x s =
     (case l1 s w x of
        Some (v, _, f) \<Rightarrow> enq_l2 (dev_of L w) (Addr x)
                             (set_l2 (dev_of L w) x (Some (v, Dirty, Valid)) (set_l1 w x (Some (v, Clean, f)) s))
      | None \<Rightarrow> s)"

definition write_back_l2 :: "did \<Rightarrow> addr \<Rightarrow> state \<Rightarrow> state" where
  "write_back_l2 d x s =
     (case l2 s d x of
        Some (v, _, f) \<Rightarrow> set_l2 d x (Some (v, Clean, f)) (s\<lparr>mem := (mem s)(x := v)\<rparr>)
      | None \<Rightarrow> s)"

definition dirty :: "entry option \<Rightarrow> bool" where
  "dirty e = (case e of Some (_, Dirty, _) \<Rightarrow> True | _ \<Rightarrow> False)"

text \<open>Dequeue the head of an L1 fifo: a dirty address is written back; a
  clean address or a FLUSH marker is just removed.\<close>
definition dequeue_l1 :: "layout \<Rightarrow> wid \<Rightarrow> state \<Rightarrow> state option" where
  "dequeue_l1 L w s =
     (case l1_fifo s w of
        [] \<Rightarrow> None
      | e # rest \<Rightarrow>
          (let s' = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr> in
           case e of
             Addr x \<Rightarrow> if dirty (l1 s w x)
                       then (if locked_out L s w x then None else Some (write_back_l1 L w x s'))
                       else Some s'
           | Flush _ \<Rightarrow> Some s'))"

definition dequeue_l2 :: "did \<Rightarrow> state \<Rightarrow> state option" where
  "dequeue_l2 d s =
     (case l2_fifo s d of
        [] \<Rightarrow> None
      | e # rest \<Rightarrow>
          (let s' = s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr> in
           case e of
             Addr x \<Rightarrow> if dirty (l2 s d x) then Some (write_back_l2 d x s') else Some s'
           | Flush _ \<Rightarrow> Some s'))"

text \<open>Write-back policy: in fifo order only, or any dirty line at any time
  (memalloy's EnvFlush; the README's schemes section asks for both).\<close>
datatype writeback = Fifo | Any

definition write_back_any :: "layout \<Rightarrow> writeback \<Rightarrow> state \<Rightarrow> state set" where
  "write_back_any L wb s =
     (if wb = Fifo then {}
      else {write_back_l1 L w x s | w x. w \<in> wgs L \<and> dirty (l1 s w x) \<and> \<not> locked_out L s w x}
         \<union> {write_back_l2 d x s | d x. d \<in> devs L \<and> dirty (l2 s d x)})"

text \<open>Evict a clean entry.\<close>
definition evict :: "layout \<Rightarrow> state \<Rightarrow> state set" where
  "evict L s =
     {set_l1 w x None s | w x. w \<in> wgs L \<and> l1 s w x \<noteq> None \<and> \<not> dirty (l1 s w x)}
     \<union> {set_l2 d x None s | d x. d \<in> devs L \<and> l2 s d x \<noteq> None \<and> \<not> dirty (l2 s d x)}"

definition env_step :: "layout \<Rightarrow> writeback \<Rightarrow> state \<Rightarrow> state set" where
  "env_step L wb s =
     (\<Union>w \<in> wgs L. \<Union>x. set_option (fetch_l1 L w x s)) \<union> (\<Union>d \<in> devs L. \<Union>x. set_option (fetch_l2 d x s))
     \<union> (\<Union>w \<in> wgs L. set_option (dequeue_l1 L w s)) \<union> (\<Union>d \<in> devs L. set_option (dequeue_l2 d s))
     \<union> write_back_any L wb s \<union> evict L s"

section \<open>Runs, final states, outcomes, deadlocks\<close>

definition step :: "layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> state rel" where
  "step L wb P = {(s, s'). (\<exists>t \<in> threads P. step_thread L P t s = Some s') \<or> s' \<in> env_step L wb s}"

text \<open>Final: every thread done, every fifo drained, no dirty line left.\<close>
definition is_final :: "layout \<Rightarrow> program \<Rightarrow> state \<Rightarrow> bool" where
  "is_final L P s \<longleftrightarrow>
     (\<forall>t \<in> threads P. pc s t \<ge> length (instrs P t))
     \<and> (\<forall>w \<in> wgs L. l1_fifo s w = [] \<and> (\<forall>x. \<not> dirty (l1 s w x)))
     \<and> (\<forall>d \<in> devs L. l2_fifo s d = [] \<and> (\<forall>x. \<not> dirty (l2 s d x)))"

definition initial :: "(addr \<Rightarrow> int) \<Rightarrow> state" where
  "initial m = \<lparr>mem = m, l2 = (\<lambda>_ _. None), l2_fifo = (\<lambda>_. []), lockfile = (\<lambda>_ _. None),
                l1 = (\<lambda>_ _. None), l1_fifo = (\<lambda>_. []), rmw_lock = (\<lambda>_. None),
                regs = (\<lambda>_ _. 0), pc = (\<lambda>_. 0)\<rparr>"

definition reachable :: "layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> state \<Rightarrow> state set" where
  "reachable L wb P s0 = {s. (s0, s) \<in> (step L wb P)\<^sup>*}"

type_synonym outcome = "(tid \<Rightarrow> reg \<Rightarrow> int) \<times> (addr \<Rightarrow> int)"

definition outcomes :: "layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> state \<Rightarrow> outcome set" where
  "outcomes L wb P s0 = (\<lambda>s. (regs s, mem s)) ` Set.filter (is_final L P) (reachable L wb P s0)"

text \<open>A reachable state from which no final state is reachable is a
  deadlock ([RSP15] sec. 5: as wrong as an unsound outcome).\<close>
definition deadlock_free :: "layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> state \<Rightarrow> bool" where
  "deadlock_free L wb P s0 \<longleftrightarrow>
     (\<forall>s \<in> reachable L wb P s0. \<exists>s' \<in> reachable L wb P s. is_final L P s')"

section \<open>Runs: traces of labelled steps\<close>

text \<open>A step named as hrf's explorer names it in a trace. A fetch into an
  L1 entry that is present and clean is its eviction followed by the fetch
  (hrf's reduced explorer refreshes such an entry in one step).\<close>
datatype label =
    Thread tid | FetchL1 wid addr | FetchL2 did addr | DequeueL1 wid | DequeueL2 did
  | WritebackL1 wid addr | WritebackL2 did addr | EvictL1 wid addr | EvictL2 did addr

fun label_step :: "layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> label \<Rightarrow> state \<Rightarrow> state option" where
  "label_step L wb P (Thread t) s = step_thread L P t s"
| "label_step L wb P (FetchL1 w x) s =
     (if w \<notin> wgs L then None
      else if l1 s w x \<noteq> None \<and> \<not> dirty (l1 s w x) then fetch_l1 L w x (set_l1 w x None s)
      else fetch_l1 L w x s)"
| "label_step L wb P (FetchL2 d x) s = (if d \<in> devs L then fetch_l2 d x s else None)"
| "label_step L wb P (DequeueL1 w) s = (if w \<in> wgs L then dequeue_l1 L w s else None)"
| "label_step L wb P (DequeueL2 d) s = (if d \<in> devs L then dequeue_l2 d s else None)"
| "label_step L wb P (WritebackL1 w x) s =
     (if wb = Any \<and> w \<in> wgs L \<and> dirty (l1 s w x) \<and> \<not> locked_out L s w x
      then Some (write_back_l1 L w x s) else None)"
| "label_step L wb P (WritebackL2 d x) s =
     (if wb = Any \<and> d \<in> devs L \<and> dirty (l2 s d x) then Some (write_back_l2 d x s) else None)"
| "label_step L wb P (EvictL1 w x) s =
     (if w \<in> wgs L \<and> l1 s w x \<noteq> None \<and> \<not> dirty (l1 s w x) then Some (set_l1 w x None s) else None)"
| "label_step L wb P (EvictL2 d x) s =
     (if d \<in> devs L \<and> l2 s d x \<noteq> None \<and> \<not> dirty (l2 s d x) then Some (set_l2 d x None s) else None)"

lemma env_step_steps: "s' \<in> env_step L wb s \<Longrightarrow> (s, s') \<in> (step L wb P)\<^sup>*"
  by (simp add: step_def r_into_rtrancl)

lemma label_step_steps:
  assumes "label_step L wb P l s = Some s'"
  shows "(s, s') \<in> (step L wb P)\<^sup>*"
proof (cases l)
  case (FetchL1 w x)
  then have w: "w \<in> wgs L"
    using assms by (auto split: if_splits)
  show ?thesis
  proof (cases "l1 s w x \<noteq> None \<and> \<not> dirty (l1 s w x)")
    case True
    then have "set_l1 w x None s \<in> evict L s"
      using w unfolding evict_def by blast
    then have first: "(s, set_l1 w x None s) \<in> step L wb P"
      by (simp add: step_def env_step_def)
    have "fetch_l1 L w x (set_l1 w x None s) = Some s'"
      using assms FetchL1 True w by simp
    then have "s' \<in> set_option (fetch_l1 L w x (set_l1 w x None s))"
      by simp
    then have "s' \<in> env_step L wb (set_l1 w x None s)"
      using w unfolding env_step_def by blast
    then have "(set_l1 w x None s, s') \<in> step L wb P"
      by (simp add: step_def)
    with first show ?thesis
      by (meson converse_rtrancl_into_rtrancl r_into_rtrancl)
  next
    case False
    have "label_step L wb P l s = fetch_l1 L w x s"
      unfolding FetchL1 label_step.simps if_not_P[OF False] using w by simp
    then have "fetch_l1 L w x s = Some s'"
      using assms by simp
    then have "s' \<in> set_option (fetch_l1 L w x s)"
      by simp
    then have "s' \<in> env_step L wb s"
      using w unfolding env_step_def by blast
    then show ?thesis
      by (simp add: step_def r_into_rtrancl)
  qed
next
  case (Thread t)
  then have "t \<in> threads P"
    using assms by (simp add: step_thread_def split: if_splits)
  then have "(s, s') \<in> step L wb P"
    using assms Thread by (auto simp: step_def)
  then show ?thesis
    by (rule r_into_rtrancl)
next
  case (FetchL2 d x)
  then have "d \<in> devs L" "s' \<in> set_option (fetch_l2 d x s)"
    using assms by (auto split: if_splits)
  then have "s' \<in> env_step L wb s"
    unfolding env_step_def by blast
  then show ?thesis
    by (rule env_step_steps)
next
  case (DequeueL1 w)
  then have "w \<in> wgs L" "s' \<in> set_option (dequeue_l1 L w s)"
    using assms by (auto split: if_splits)
  then have "s' \<in> env_step L wb s"
    unfolding env_step_def by blast
  then show ?thesis
    by (rule env_step_steps)
next
  case (DequeueL2 d)
  then have "d \<in> devs L" "s' \<in> set_option (dequeue_l2 d s)"
    using assms by (auto split: if_splits)
  then have "s' \<in> env_step L wb s"
    unfolding env_step_def by blast
  then show ?thesis
    by (rule env_step_steps)
next
  case (WritebackL1 w x)
  then have "wb = Any" "w \<in> wgs L" "dirty (l1 s w x)" "\<not> locked_out L s w x" "s' = write_back_l1 L w x s"
    using assms by (auto split: if_splits)
  then have "s' \<in> write_back_any L wb s"
    unfolding write_back_any_def by auto
  then have "s' \<in> env_step L wb s"
    unfolding env_step_def by blast
  then show ?thesis
    by (rule env_step_steps)
next
  case (WritebackL2 d x)
  then have "wb = Any" "d \<in> devs L" "dirty (l2 s d x)" "s' = write_back_l2 d x s"
    using assms by (auto split: if_splits)
  then have "s' \<in> write_back_any L wb s"
    unfolding write_back_any_def by auto
  then have "s' \<in> env_step L wb s"
    unfolding env_step_def by blast
  then show ?thesis
    by (rule env_step_steps)
next
  case (EvictL1 w x)
  then have "w \<in> wgs L" "l1 s w x \<noteq> None" "\<not> dirty (l1 s w x)" "s' = set_l1 w x None s"
    using assms by (auto split: if_splits)
  then have "s' \<in> evict L s"
    unfolding evict_def by blast
  then have "s' \<in> env_step L wb s"
    unfolding env_step_def by blast
  then show ?thesis
    by (rule env_step_steps)
next
  case (EvictL2 d x)
  then have "d \<in> devs L" "l2 s d x \<noteq> None" "\<not> dirty (l2 s d x)" "s' = set_l2 d x None s"
    using assms by (auto split: if_splits)
  then have "s' \<in> evict L s"
    unfolding evict_def by blast
  then have "s' \<in> env_step L wb s"
    unfolding env_step_def by blast
  then show ?thesis
    by (rule env_step_steps)
qed

fun run :: "layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> label list \<Rightarrow> state \<Rightarrow> state option" where
  "run L wb P [] s = Some s"
| "run L wb P (l # ls) s = Option.bind (label_step L wb P l s) (run L wb P ls)"

lemma run_reachable: "run L wb P ls s = Some s' \<Longrightarrow> s' \<in> reachable L wb P s"
proof (induction ls arbitrary: s)
  case Nil
  then show ?case by (simp add: reachable_def)
next
  case (Cons l ls)
  then obtain s1 where "label_step L wb P l s = Some s1" and "run L wb P ls s1 = Some s'"
    by (auto split: Option.bind_splits)
  then show ?case
    using Cons.IH label_step_steps by (fastforce simp: reachable_def intro: rtrancl_trans)
qed

section \<open>Final states over the program's addresses\<close>

text \<open>Only stores and increments make a line dirty, so a line at an
  address no instruction names is never dirty: whether a state is final can
  be decided over the program's addresses (is_final_on, executable).\<close>
fun instr_addrs :: "instr \<Rightarrow> addr set" where
  "instr_addrs (LD r x) = {x}"
| "instr_addrs (ST v x) = {x}"
| "instr_addrs (INCL1 r x) = {x}"
| "instr_addrs (INCL2 r x) = {x}"
| "instr_addrs (LK x) = {x}"
| "instr_addrs (UNLK x) = {x}"
| "instr_addrs _ = {}"

definition addrs :: "program \<Rightarrow> addr set" where
  "addrs P = (\<Union>t \<in> threads P. \<Union>i \<in> set (instrs P t). instr_addrs i)"

definition clean_outside :: "addr set \<Rightarrow> state \<Rightarrow> bool" where
  "clean_outside A s \<longleftrightarrow> (\<forall>x. x \<notin> A \<longrightarrow> (\<forall>w. \<not> dirty (l1 s w x)) \<and> (\<forall>d. \<not> dirty (l2 s d x)))"

definition is_final_on :: "addr set \<Rightarrow> layout \<Rightarrow> program \<Rightarrow> state \<Rightarrow> bool" where
  "is_final_on A L P s \<longleftrightarrow>
     (\<forall>t \<in> threads P. pc s t \<ge> length (instrs P t))
     \<and> (\<forall>w \<in> wgs L. l1_fifo s w = [] \<and> (\<forall>x \<in> A. \<not> dirty (l1 s w x)))
     \<and> (\<forall>d \<in> devs L. l2_fifo s d = [] \<and> (\<forall>x \<in> A. \<not> dirty (l2 s d x)))"

lemma dirty_invalidate [simp]: "dirty (invalidate e) = dirty e"
  by (auto simp: dirty_def invalidate_def split: option.splits)

lemma dirty_simps [simp]:
  "\<not> dirty None" "dirty (Some (v, h, f)) \<longleftrightarrow> h = Dirty"
  by (auto simp: dirty_def split: hygiene.splits)

lemma exec_clean_outside:
  assumes "exec L t i s = Some s'" "clean_outside A s" "instr_addrs i \<subseteq> A"
  shows "clean_outside A s'"
  using assms
  by (cases i)
     (auto simp: clean_outside_def Let_def set_reg_def set_l1_def set_l2_def enq_l1_def enq_l2_def
           split: if_splits)

lemma fetch_l1_clean: "fetch_l1 L w x s = Some s' \<Longrightarrow> clean_outside A s \<Longrightarrow> clean_outside A s'"
  by (auto simp: fetch_l1_def set_l1_def clean_outside_def split: if_splits)

lemma fetch_l2_clean: "fetch_l2 d x s = Some s' \<Longrightarrow> clean_outside A s \<Longrightarrow> clean_outside A s'"
  by (auto simp: fetch_l2_def set_l2_def clean_outside_def split: if_splits)

lemma write_back_l1_clean:
  "clean_outside A s \<Longrightarrow> dirty (l1 s w x) \<Longrightarrow> clean_outside A (write_back_l1 L w x s)"
  by (auto simp: write_back_l1_def enq_l2_def set_l1_def set_l2_def clean_outside_def split: option.splits)

lemma write_back_l2_clean: "clean_outside A s \<Longrightarrow> clean_outside A (write_back_l2 d x s)"
  by (auto simp: write_back_l2_def set_l2_def clean_outside_def split: option.splits)

lemma evict_clean:
  "clean_outside A s \<Longrightarrow> clean_outside A (set_l1 w x None s)"
  "clean_outside A s \<Longrightarrow> clean_outside A (set_l2 d x None s)"
  by (auto simp: set_l1_def set_l2_def clean_outside_def)

lemma dequeue_l1_clean:
  assumes "dequeue_l1 L w s = Some s'" "clean_outside A s"
  shows "clean_outside A s'"
proof (cases "l1_fifo s w")
  case Nil
  with assms show ?thesis by (simp add: dequeue_l1_def)
next
  case (Cons e rest)
  define s1 where "s1 = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr>"
  have c1: "clean_outside A s1"
    using assms(2) by (simp add: s1_def clean_outside_def)
  have "s' = s1 \<or> (\<exists>x. dirty (l1 s1 w x) \<and> s' = write_back_l1 L w x s1)"
    using assms(1) Cons
    by (cases e) (auto simp: dequeue_l1_def s1_def Let_def split: if_splits)
  then show ?thesis
    using c1 write_back_l1_clean by blast
qed

lemma dequeue_l2_clean:
  assumes "dequeue_l2 d s = Some s'" "clean_outside A s"
  shows "clean_outside A s'"
proof (cases "l2_fifo s d")
  case Nil
  with assms show ?thesis by (simp add: dequeue_l2_def)
next
  case (Cons e rest)
  define s1 where "s1 = s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr>"
  have c1: "clean_outside A s1"
    using assms(2) by (simp add: s1_def clean_outside_def)
  have "s' = s1 \<or> (\<exists>x. s' = write_back_l2 d x s1)"
    using assms(1) Cons
    by (cases e) (auto simp: dequeue_l2_def s1_def Let_def split: if_splits)
  then show ?thesis
    using c1 write_back_l2_clean by blast
qed

lemma env_step_clean:
  assumes "s' \<in> env_step L wb s" "clean_outside A s"
  shows "clean_outside A s'"
proof -
  have "(\<exists>w x. fetch_l1 L w x s = Some s') \<or> (\<exists>d x. fetch_l2 d x s = Some s')
      \<or> (\<exists>w. dequeue_l1 L w s = Some s') \<or> (\<exists>d. dequeue_l2 d s = Some s')
      \<or> (\<exists>w x. dirty (l1 s w x) \<and> s' = write_back_l1 L w x s) \<or> (\<exists>d x. s' = write_back_l2 d x s)
      \<or> (\<exists>w x. s' = set_l1 w x None s) \<or> (\<exists>d x. s' = set_l2 d x None s)"
    using assms(1) unfolding env_step_def write_back_any_def evict_def
    by (auto split: if_splits)
  then show ?thesis
  proof (elim disjE exE conjE)
    fix w x assume "fetch_l1 L w x s = Some s'"
    then show ?thesis using assms(2) by (rule fetch_l1_clean)
  next
    fix d x assume "fetch_l2 d x s = Some s'"
    then show ?thesis using assms(2) by (rule fetch_l2_clean)
  next
    fix w assume "dequeue_l1 L w s = Some s'"
    then show ?thesis using assms(2) by (rule dequeue_l1_clean)
  next
    fix d assume "dequeue_l2 d s = Some s'"
    then show ?thesis using assms(2) by (rule dequeue_l2_clean)
  next
    fix w x assume "dirty (l1 s w x)" "s' = write_back_l1 L w x s"
    then show ?thesis using assms(2) write_back_l1_clean by simp
  next
    fix d x assume "s' = write_back_l2 d x s"
    then show ?thesis using assms(2) write_back_l2_clean by simp
  next
    fix w x assume "s' = set_l1 w x None s"
    then show ?thesis using assms(2) evict_clean(1) by simp
  next
    fix d x assume "s' = set_l2 d x None s"
    then show ?thesis using assms(2) evict_clean(2) by simp
  qed
qed

lemma step_clean_outside:
  assumes "(s, s') \<in> step L wb P" "clean_outside (addrs P) s"
  shows "clean_outside (addrs P) s'"
proof -
  { fix t assume t: "t \<in> threads P" and st: "step_thread L P t s = Some s'"
    then have pc: "pc s t < length (instrs P t)"
      by (auto simp: step_thread_def split: if_splits)
    then have "instr_addrs (instrs P t ! pc s t) \<subseteq> addrs P"
      unfolding addrs_def using t nth_mem[OF pc] by blast
    then have ?thesis
      using st assms(2) exec_clean_outside[of L t "instrs P t ! pc s t" s _ "addrs P"]
      by (fastforce simp: step_thread_def Let_def set_pc_def clean_outside_def split: if_splits) }
  then show ?thesis
    using assms env_step_clean by (auto simp: step_def)
qed

lemma reachable_clean_outside:
  assumes "s \<in> reachable L wb P (initial m)"
  shows "clean_outside (addrs P) s"
proof -
  have "(initial m, s) \<in> (step L wb P)\<^sup>*"
    using assms by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    then show ?case by (simp add: clean_outside_def initial_def)
  next
    case (step s1 s2)
    then show ?case using step_clean_outside by blast
  qed
qed

lemma is_final_on_addrs:
  assumes "s \<in> reachable L wb P (initial m)" "is_final_on (addrs P) L P s"
  shows "is_final L P s"
  using reachable_clean_outside[OF assms(1)] assms(2)
  unfolding is_final_on_def is_final_def clean_outside_def by blast

text \<open>A run from the initial state that evaluates to a state final over the
  program's addresses, where Q holds, gives a reachable final state where Q
  holds: an outcome of the machine (evaluate the run's premise by eval).\<close>
lemma run_outcome:
  assumes "case run L wb P ls (initial m) of None \<Rightarrow> False | Some s \<Rightarrow> is_final_on (addrs P) L P s \<and> Q s"
  shows "\<exists>s \<in> reachable L wb P (initial m). is_final L P s \<and> Q s"
  using assms run_reachable is_final_on_addrs by (fastforce split: option.splits)

end
