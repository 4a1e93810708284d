(* hrf base theory: compilation schemes (the README's schemes section) over the machine of
   Hrf_Machine, and what it means for a scheme, or one of its rows, to be
   sound. Written by hand next to python/hrf/mappings/. The source model is
   a parameter (locale source_model): hrf decides soundness for one test at
   a time against its own model (`hrf soundness`); these are the general
   statements, proved nowhere yet. *)
theory Hrf_Mapping
  imports Hrf_Machine
begin

text \<open>Source operations (the README's schemes section): load, store or fetch_inc, non-atomic
  or atomic at a scope, remote (RSP, [RSP15]) or not. hrf's rows for fetch_inc
  serve every RMW; here the RMW is the machine's increment.\<close>
datatype src_scope = NonAtomic | WorkGroup | Device | AllDevices
datatype src_op = Load src_scope bool | Store src_scope bool | FetchInc src_scope bool

text \<open>A row: the instruction sequence for the operation on register r and
  address x. A scheme gives a row for some operations.\<close>
type_synonym row = "reg \<Rightarrow> addr \<Rightarrow> instr list"
type_synonym scheme = "src_op \<Rightarrow> row option"

text \<open>A source program: straight-line threads of operations (each with its
  register and address) and register moves, and the initial memory.\<close>
datatype src_instr = Op src_op reg addr | SetReg reg int

record src_program =
  src_threads :: "tid set"
  src_code :: "tid \<Rightarrow> src_instr list"
  src_init :: "addr \<Rightarrow> int"

definition op_of :: "src_instr \<Rightarrow> src_op set" where
  "op_of i = (case i of Op a r x \<Rightarrow> {a} | SetReg r v \<Rightarrow> {})"

definition ops_of :: "src_program \<Rightarrow> src_op set" where
  "ops_of P = (\<Union>t \<in> src_threads P. \<Union>i \<in> set (src_code P t). op_of i)"

definition compilable :: "scheme \<Rightarrow> src_program \<Rightarrow> bool" where
  "compilable S P \<longleftrightarrow> (\<forall>a \<in> ops_of P. S a \<noteq> None)"

definition compile_instr :: "scheme \<Rightarrow> src_instr \<Rightarrow> instr list" where
  "compile_instr S i = (case i of Op a r x \<Rightarrow> the (S a) r x | SetReg r v \<Rightarrow> [MOV r (EC v)])"

definition compile :: "scheme \<Rightarrow> src_program \<Rightarrow> program" where
  "compile S P = \<lparr>threads = src_threads P, instrs = (\<lambda>t. concat (map (compile_instr S) (src_code P t)))\<rparr>"

text \<open>Threads sit in work-groups of the layout, work-groups in its devices.\<close>
definition well_placed :: "layout \<Rightarrow> src_program \<Rightarrow> bool" where
  "well_placed L P \<longleftrightarrow>
     finite (src_threads P) \<and> finite (wgs L) \<and> finite (devs L)
     \<and> (\<forall>t \<in> src_threads P. wg_of L t \<in> wgs L) \<and> (\<forall>w \<in> wgs L. dev_of L w \<in> devs L)"

text \<open>Plain (non-atomic, not remote) loads and stores.\<close>
definition plain_ops :: "src_op set" where
  "plain_ops = {Load NonAtomic False, Store NonAtomic False}"

text \<open>The source model: the outcomes it allows a program, and whether the
  program is racy, both for a placement of its threads (scopes are
  instances of the layout's work-groups and devices).\<close>
locale source_model =
  fixes allowed :: "layout \<Rightarrow> src_program \<Rightarrow> outcome set"
    and racy :: "layout \<Rightarrow> src_program \<Rightarrow> bool"
begin

text \<open>Soundness on one program (the README's schemes section): a racy source is skipped;
  otherwise every machine outcome of the compiled program, under the
  write-back policy, is allowed by the source model, and the compiled
  program cannot deadlock.\<close>
definition sound_on :: "layout \<Rightarrow> writeback \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> bool" where
  "sound_on L wb S P \<longleftrightarrow>
     (\<not> racy L P \<longrightarrow>
        outcomes L wb (compile S P) (initial (src_init P)) \<subseteq> allowed L P
        \<and> deadlock_free L wb (compile S P) (initial (src_init P)))"

definition sound :: "scheme \<Rightarrow> bool" where
  "sound S \<longleftrightarrow> (\<forall>L wb P. well_placed L P \<and> compilable S P \<longrightarrow> sound_on L wb S P)"

text \<open>A row implements its source operation when the scheme is sound on every
  program whose operations are that one and plain accesses. Each row's lemma
  is a statement of its own: together they do not give the soundness of the
  scheme, which also covers programs that mix rows.\<close>
definition row_implements :: "scheme \<Rightarrow> src_op \<Rightarrow> bool" where
  "row_implements S a \<longleftrightarrow>
     (\<forall>L wb P. well_placed L P \<and> compilable S P \<and> ops_of P \<subseteq> insert a plain_ops
        \<longrightarrow> sound_on L wb S P)"

lemma sound_row: "sound S \<Longrightarrow> row_implements S a"
  by (simp add: sound_def row_implements_def)

end

end
