(* hrf base theory: the operational GPU machine of ([RSP15] sec. 5,
   Fig. 4 and Table 1), written by hand next to rust/src/machine/step.rs.
   Each instruction and each environment step is a state transformer
   state => state set; the empty set means the step is blocked. *)
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

text \<open>The instructions of [RSP15] Table 1, hrf's INVL2, and register code
  (MOV r v; BNZ r target; JMP target).\<close>
datatype instr =
    LD reg addr | ST reg addr | INCL1 reg addr | INCL2 reg addr
  | FLUL1 scope | FLUL2 scope | INVL1 scope | INVL2 scope
  | LK addr | UNLK addr | LKrmw scope | UNLKrmw scope
  | MOV reg int | BNZ reg nat | JMP nat

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

text \<open>exec L t i s: the states after thread t executes i in s, its pc not
  yet advanced (step_thread does that, or a branch sets it).\<close>
fun exec :: "layout \<Rightarrow> tid \<Rightarrow> instr \<Rightarrow> state \<Rightarrow> state set" where
  \<comment> \<open>LD r x: L1(x) valid: r := its value; else block (the environment fetches).\<close>
  "exec L t (LD r x) s =
     (let e = l1 s (wg_of L t) x in if readable e then {set_reg t r (val_of e) s} else {})"
  \<comment> \<open>ST r x: L1(x) dirty and invalid: block; else write it dirty and valid, enqueue x.\<close>
| "exec L t (ST r x) s =
     (let w = wg_of L t in
      if l1 s w x = Some (val_of (l1 s w x), Dirty, Invalid) then {}
      else {enq_l1 w (Addr x) (set_l1 w x (Some (regs s t r, Dirty, Valid)) s)})"
  \<comment> \<open>INCL1 r x: atomic increment at L1 (entry valid; old value to r; enqueue x).\<close>
| "exec L t (INCL1 r x) s =
     (let w = wg_of L t; e = l1 s w x in
      if readable e
      then {enq_l1 w (Addr x) (set_l1 w x (Some (val_of e + 1, Dirty, Valid)) (set_reg t r (val_of e) s))}
      else {})"
  \<comment> \<open>INCL2 r x: the same at the device's L2.\<close>
| "exec L t (INCL2 r x) s =
     (let d = dev_of L (wg_of L t); e = l2 s d x in
      if readable e
      then {enq_l2 d (Addr x) (set_l2 d x (Some (val_of e + 1, Dirty, Valid)) (set_reg t r (val_of e) s))}
      else {})"
  \<comment> \<open>FLUL1 s: t's FLUSH marker on the L1 fifo of every work-group in scope s.\<close>
| "exec L t (FLUL1 sc) s =
     {s\<lparr>l1_fifo := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then l1_fifo s w @ [Flush t] else l1_fifo s w)\<rparr>}"
  \<comment> \<open>FLUL2 s: on the L2 fifo of every device in scope s.\<close>
| "exec L t (FLUL2 sc) s =
     {s\<lparr>l2_fifo := (\<lambda>d. if d \<in> devs_in L sc (dev_of L (wg_of L t)) then l2_fifo s d @ [Flush t] else l2_fifo s d)\<rparr>}"
  \<comment> \<open>INVL1 s: every entry of the L1 caches in scope s becomes INVALID.\<close>
| "exec L t (INVL1 sc) s =
     {s\<lparr>l1 := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then invalidate \<circ> l1 s w else l1 s w)\<rparr>}"
  \<comment> \<open>INVL2 s (hrf's extension): the same for the L2 caches in scope s.\<close>
| "exec L t (INVL2 sc) s =
     {s\<lparr>l2 := (\<lambda>d. if d \<in> devs_in L sc (dev_of L (wg_of L t)) then invalidate \<circ> l2 s d else l2 s d)\<rparr>}"
  \<comment> \<open>LK x / UNLK x: take (block if held) / release x in the device's lock file.\<close>
| "exec L t (LK x) s =
     (let d = dev_of L (wg_of L t) in
      if lockfile s d x = None then {s\<lparr>lockfile := (lockfile s)(d := (lockfile s d)(x := Some t))\<rparr>} else {})"
| "exec L t (UNLK x) s =
     (let d = dev_of L (wg_of L t) in
      if lockfile s d x = Some t then {s\<lparr>lockfile := (lockfile s)(d := (lockfile s d)(x := None))\<rparr>} else {})"
  \<comment> \<open>LKrmw s / UNLKrmw s: take (block if any is held) / release every rmw lock in scope s.\<close>
| "exec L t (LKrmw sc) s =
     (if \<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s w = None
      then {s\<lparr>rmw_lock := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then Some t else rmw_lock s w)\<rparr>}
      else {})"
| "exec L t (UNLKrmw sc) s =
     (if \<forall>w \<in> wgs_in L sc (wg_of L t). rmw_lock s w = Some t
      then {s\<lparr>rmw_lock := (\<lambda>w. if w \<in> wgs_in L sc (wg_of L t) then None else rmw_lock s w)\<rparr>}
      else {})"
| "exec L t (MOV r v) s = {set_reg t r v s}"
| "exec L t (BNZ r n) s = {s}"
| "exec L t (JMP n) s = {s}"

text \<open>The pc after an instruction: a taken branch or a jump sets it.\<close>
definition next_pc :: "tid \<Rightarrow> instr \<Rightarrow> state \<Rightarrow> nat" where
  "next_pc t i s = (case i of
      BNZ r n \<Rightarrow> if regs s t r \<noteq> 0 then n else Suc (pc s t)
    | JMP n \<Rightarrow> n
    | _ \<Rightarrow> Suc (pc s t))"

definition step_thread :: "layout \<Rightarrow> program \<Rightarrow> tid \<Rightarrow> state \<Rightarrow> state set" where
  "step_thread L P t s =
     (if t \<notin> threads P \<or> pc s t \<ge> length (instrs P t) \<or> unflushed L s t then {}
      else (let i = instrs P t ! pc s t in set_pc t (next_pc t i s) ` exec L t i s))"

section \<open>Environment steps ([RSP15] sec. 5)\<close>

text \<open>Fetches into and write-backs from an L1 wait while the address is
  locked in the device's lock file by a thread of another work-group.\<close>
definition locked_out :: "layout \<Rightarrow> state \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> bool" where
  "locked_out L s w x \<longleftrightarrow> (case lockfile s (dev_of L w) x of None \<Rightarrow> False | Some t \<Rightarrow> wg_of L t \<noteq> w)"

text \<open>Fetch x into L1 from L2: L1(x) absent or clean-invalid, L2(x) valid.\<close>
definition fetch_l1 :: "layout \<Rightarrow> wid \<Rightarrow> addr \<Rightarrow> state \<Rightarrow> state set" where
  "fetch_l1 L w x s =
     (if (l1 s w x = None \<or> l1 s w x = Some (val_of (l1 s w x), Clean, Invalid))
         \<and> readable (l2 s (dev_of L w) x) \<and> \<not> locked_out L s w x
      then {set_l1 w x (Some (val_of (l2 s (dev_of L w) x), Clean, Valid)) s} else {})"

text \<open>Fetch x into L2 from memory: L2(x) not dirty.\<close>
definition fetch_l2 :: "did \<Rightarrow> addr \<Rightarrow> state \<Rightarrow> state set" where
  "fetch_l2 d x s =
     (if l2 s d x = Some (val_of (l2 s d x), Dirty, Valid) \<or> l2 s d x = Some (val_of (l2 s d x), Dirty, Invalid)
      then {} else {set_l2 d x (Some (mem s x, Clean, Valid)) s})"

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
definition dequeue_l1 :: "layout \<Rightarrow> wid \<Rightarrow> state \<Rightarrow> state set" where
  "dequeue_l1 L w s =
     (case l1_fifo s w of
        [] \<Rightarrow> {}
      | e # rest \<Rightarrow>
          (let s' = s\<lparr>l1_fifo := (l1_fifo s)(w := rest)\<rparr> in
           case e of
             Addr x \<Rightarrow> if dirty (l1 s w x)
                       then (if locked_out L s w x then {} else {write_back_l1 L w x s'})
                       else {s'}
           | Flush _ \<Rightarrow> {s'}))"

definition dequeue_l2 :: "did \<Rightarrow> state \<Rightarrow> state set" where
  "dequeue_l2 d s =
     (case l2_fifo s d of
        [] \<Rightarrow> {}
      | e # rest \<Rightarrow>
          (let s' = s\<lparr>l2_fifo := (l2_fifo s)(d := rest)\<rparr> in
           case e of
             Addr x \<Rightarrow> if dirty (l2 s d x) then {write_back_l2 d x s'} else {s'}
           | Flush _ \<Rightarrow> {s'}))"

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
     (\<Union>w \<in> wgs L. \<Union>x. fetch_l1 L w x s) \<union> (\<Union>d \<in> devs L. \<Union>x. fetch_l2 d x s)
     \<union> (\<Union>w \<in> wgs L. dequeue_l1 L w s) \<union> (\<Union>d \<in> devs L. dequeue_l2 d s)
     \<union> write_back_any L wb s \<union> evict L s"

section \<open>Runs, final states, outcomes, deadlocks\<close>

definition step :: "layout \<Rightarrow> writeback \<Rightarrow> program \<Rightarrow> state rel" where
  "step L wb P = {(s, s'). (\<exists>t \<in> threads P. s' \<in> step_thread L P t s) \<or> s' \<in> env_step L wb s}"

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

end
