(* hrf base theory: candidate executions as finite relations.
   Written by hand. Theories that hrf exports import it and give each
   execution as a concrete value of type execution; every constant below is
   executable, so finite facts about an execution are proved by eval. *)
theory Hrf_Execution
  imports Main
begin

type_synonym event = nat

text \<open>A candidate execution, as hrf's core reports it:
  the events; their thread (None for an initial write) and location (None
  for a fence); the tags of their operation (R, W, M, F, IW, A, NA, memory
  orders sc/acq/rel/acq_rel, scopes wi/sg/wg/dev/all, remote, regions
  global/local, ...); the integer attributes of their operation (sinst, the
  scope instance; bar, the barrier instance); the integer attributes of
  threads (wi, sg, wg, dev: the work-item, sub-group, work-group and device
  a thread belongs to); immediate program order and immediate coherence
  order; reads-from; the read-modify-write pairs; and the data and control
  dependencies (from a read to the events that depend on it).\<close>

record execution =
  events :: "event set"
  thread_of :: "event \<Rightarrow> nat option"
  loc_of :: "event \<Rightarrow> nat option"
  tags :: "string \<Rightarrow> event set"
  attr :: "string \<Rightarrow> event \<Rightarrow> int option"
  thread_attr :: "string \<Rightarrow> nat \<Rightarrow> int option"
  po_imm :: "event rel"
  co_imm :: "event rel"
  rf :: "event rel"
  rmw :: "event rel"
  data :: "event rel"
  ctrl :: "event rel"

section \<open>Tables: how exported theories write the attribute fields\<close>

definition table :: "('k \<times> 'v set) list \<Rightarrow> 'k \<Rightarrow> 'v set" where
  "table kvs k = (case map_of kvs k of None \<Rightarrow> {} | Some s \<Rightarrow> s)"

definition attr_table :: "('k \<times> ('a \<times> 'b) list) list \<Rightarrow> 'k \<Rightarrow> 'a \<Rightarrow> 'b option" where
  "attr_table kvs k = (case map_of kvs k of None \<Rightarrow> Map.empty | Some m \<Rightarrow> map_of m)"

section \<open>Evaluation of closures\<close>

text \<open>Main's code for relational composition keeps a pair once per way of
  making it; the closure (trancl, by n rounds of r' \<union> r' O r) then
  carries the duplicates along and doubles them each round on a cyclic
  relation, so that acyclic of a cyclic relation of 26 pairs does not
  return. The same composition without duplicates: the closure is then
  polynomial (the 26 pairs: a millisecond).\<close>
lemma set_relcomp_remdups [code]:
  "set xys O set yzs = set (remdups [(fst xy, snd yz). xy \<leftarrow> xys, yz \<leftarrow> yzs, snd xy = fst yz])"
  by (simp only: set_remdups set_relcomp)

section \<open>Relational operators, over the events of an execution\<close>

definition pairs_where :: "execution \<Rightarrow> (event \<Rightarrow> event \<Rightarrow> bool) \<Rightarrow> event rel" where
  "pairs_where X P = Set.filter (\<lambda>(a, b). P a b) (events X \<times> events X)"

text \<open>The inverse r^-1, written with an image so that it is executable.\<close>
definition conv :: "'a rel \<Rightarrow> 'a rel" where
  "conv r = prod.swap ` r"

lemma conv_is_converse: "conv r = r\<inverse>"
  by (auto simp: conv_def)

text \<open>r* and r? are reflexive on the events of the execution (as in herd).\<close>
definition star :: "execution \<Rightarrow> event rel \<Rightarrow> event rel" where
  "star X r = r\<^sup>+ \<union> Id_on (events X)"

definition opt :: "execution \<Rightarrow> event rel \<Rightarrow> event rel" where
  "opt X r = r \<union> Id_on (events X)"

definition dom_of :: "'a rel \<Rightarrow> 'a set" where
  "dom_of r = fst ` r"

definition ran_of :: "'a rel \<Rightarrow> 'a set" where
  "ran_of r = snd ` r"

section \<open>Sets and relations every model reads\<close>

definition tag :: "execution \<Rightarrow> string \<Rightarrow> event set" where
  "tag X t = tags X t"

definition universal :: "execution \<Rightarrow> event rel" where
  "universal X = events X \<times> events X"

text \<open>Address dependencies: none (hrf's litmus tests hold no pointers).\<close>
definition addr :: "execution \<Rightarrow> event rel" where
  "addr X = {}"

definition id_r :: "execution \<Rightarrow> event rel" where
  "id_r X = Id_on (events X)"

text \<open>Program order and coherence order: the core reports their immediate
  edges; both are strict partial orders, hence the transitive closures.\<close>
definition po :: "execution \<Rightarrow> event rel" where
  "po X = (po_imm X)\<^sup>+"

definition co :: "execution \<Rightarrow> event rel" where
  "co X = (co_imm X)\<^sup>+"

text \<open>From-reads: fr = rf^-1; co (herd; reads of the initial value included).\<close>
definition fr :: "execution \<Rightarrow> event rel" where
  "fr X = conv (rf X) O co X"

text \<open>Same location (reflexive on accesses), same thread (reflexive on
  thread events), different threads.\<close>
definition loc :: "execution \<Rightarrow> event rel" where
  "loc X = pairs_where X (\<lambda>a b. loc_of X a \<noteq> None \<and> loc_of X a = loc_of X b)"

definition int_r :: "execution \<Rightarrow> event rel" where
  "int_r X = pairs_where X (\<lambda>a b. thread_of X a \<noteq> None \<and> thread_of X a = thread_of X b)"

definition ext_r :: "execution \<Rightarrow> event rel" where
  "ext_r X = pairs_where X (\<lambda>a b. thread_of X a \<noteq> None \<and> thread_of X b \<noteq> None) - int_r X"

text \<open>Pairs of events whose operations agree on an attribute (e.g. the same
  scope instance), and pairs of thread events whose threads agree on a
  thread attribute (e.g. the same work-group).\<close>
definition same_attr :: "execution \<Rightarrow> string \<Rightarrow> event rel" where
  "same_attr X a = pairs_where X (\<lambda>e f. attr X a e \<noteq> None \<and> attr X a e = attr X a f)"

definition same_thread_attr :: "execution \<Rightarrow> string \<Rightarrow> event rel" where
  "same_thread_attr X a = pairs_where X (\<lambda>e f.
     (case (thread_of X e, thread_of X f) of
        (Some t, Some u) \<Rightarrow> thread_attr X a t \<noteq> None \<and> thread_attr X a t = thread_attr X a u
      | _ \<Rightarrow> False))"

text \<open>The classes of events sharing a value of an attribute (e.g. one class
  per scope instance), and the union of a relation built for each class:
  HRF-direct's union over scopes ([HRF14] sidebar "Formal Definition of
  HRF-direct").\<close>
definition attr_classes :: "execution \<Rightarrow> string \<Rightarrow> event set set" where
  "attr_classes X a = (\<lambda>e. Set.filter (\<lambda>f. attr X a f = attr X a e) (events X))
                   ` Set.filter (\<lambda>e. attr X a e \<noteq> None) (events X)"

definition foreach :: "execution \<Rightarrow> string \<Rightarrow> (event set \<Rightarrow> event rel) \<Rightarrow> event rel" where
  "foreach X a body = \<Union> (body ` attr_classes X a)"

section \<open>Witness orders\<close>

text \<open>Some models (the HRF-relaxed family's apparent order sc) hold of an
  execution when some total order of a set of its events passes their
  checks. The orders of a finite set are the lists of its elements in
  every order (executable, so that such lemmas are proved by evaluation).\<close>
fun ins_all :: "'a \<Rightarrow> 'a list \<Rightarrow> 'a list list" where
  "ins_all x [] = [[x]]"
| "ins_all x (y # ys) = (x # y # ys) # map (Cons y) (ins_all x ys)"

fun perms :: "'a list \<Rightarrow> 'a list list" where
  "perms [] = [[]]"
| "perms (x # xs) = concat (map (ins_all x) (perms xs))"

fun order_of :: "'a list \<Rightarrow> 'a rel" where
  "order_of [] = {}"
| "order_of (x # xs) = Pair x ` set xs \<union> order_of xs"

definition total_orders :: "event set \<Rightarrow> event rel set" where
  "total_orders S = set (map order_of (perms (sorted_list_of_set S)))"

text \<open>The orders that avoid a relation H (no pair of the order in H), built
  by inserting one element at a time and dropping a partial order as soon as
  it has a pair in H: inserting an element only adds pairs, so nothing
  dropped could have been completed. A model's code equation uses it where
  its first check on the order is that the order and H are disjoint (the
  HRF-relaxed family: sc does not contradict hhb), so that evaluation tries
  the orders that extend H's converse, not all n! of them.\<close>
fun perms_avoiding :: "'a rel \<Rightarrow> 'a list \<Rightarrow> 'a list list" where
  "perms_avoiding H [] = [[]]"
| "perms_avoiding H (x # xs) =
     concat (map (\<lambda>p. filter (\<lambda>q. order_of q \<inter> H = {}) (ins_all x p)) (perms_avoiding H xs))"

lemma set_ins_all: "q \<in> set (ins_all x ys) \<Longrightarrow> set q = insert x (set ys)"
  by (induction ys arbitrary: q) auto

lemma order_of_ins_all: "q \<in> set (ins_all x p) \<Longrightarrow> order_of p \<subseteq> order_of q"
proof (induction p arbitrary: q)
  case Nil
  then show ?case by simp
next
  case (Cons y ys)
  from Cons.prems consider "q = x # y # ys" | q' where "q = y # q'" "q' \<in> set (ins_all x ys)"
    by auto
  then show ?case
  proof cases
    case 1
    then show ?thesis by auto
  next
    case 2
    then show ?thesis using Cons.IH[of q'] set_ins_all[of q' x ys] by auto
  qed
qed

lemma set_perms_avoiding: "set (perms_avoiding H xs) = {p \<in> set (perms xs). order_of p \<inter> H = {}}"
proof (induction xs)
  case Nil
  show ?case by auto
next
  case (Cons x xs)
  have perms_Cons: "set (perms (x # xs)) = (\<Union>p \<in> set (perms xs). set (ins_all x p))"
    by (simp only: perms.simps set_concat set_map image_image)
  have avoiding_Cons: "set (perms_avoiding H (x # xs))
      = (\<Union>p \<in> set (perms_avoiding H xs). {q \<in> set (ins_all x p). order_of q \<inter> H = {}})"
    by (simp only: perms_avoiding.simps set_concat set_map set_filter image_image)
  show ?case
  proof (rule set_eqI, rule iffI)
    fix q
    assume "q \<in> set (perms_avoiding H (x # xs))"
    then obtain p where p: "p \<in> set (perms_avoiding H xs)" "q \<in> set (ins_all x p)" "order_of q \<inter> H = {}"
      unfolding avoiding_Cons by blast
    from p(1) have "p \<in> set (perms xs)"
      unfolding Cons.IH by blast
    with p(2,3) show "q \<in> {p \<in> set (perms (x # xs)). order_of p \<inter> H = {}}"
      unfolding perms_Cons by blast
  next
    fix q
    assume "q \<in> {p \<in> set (perms (x # xs)). order_of p \<inter> H = {}}"
    then obtain p where p: "p \<in> set (perms xs)" "q \<in> set (ins_all x p)" "order_of q \<inter> H = {}"
      unfolding perms_Cons by blast
    have "order_of p \<subseteq> order_of q"
      using p(2) by (rule order_of_ins_all)
    then have "order_of p \<inter> H = {}"
      using p(3) by blast
    with p(1) have "p \<in> set (perms_avoiding H xs)"
      unfolding Cons.IH by blast
    with p(2,3) show "q \<in> set (perms_avoiding H (x # xs))"
      unfolding avoiding_Cons by blast
  qed
qed

text \<open>A check whose relation grows with the order holds for the empty order
  when it holds for some order (a model's code equation tries that first).\<close>
lemma check_subset:
  "acyclic r \<Longrightarrow> s \<subseteq> r \<Longrightarrow> acyclic s"
  "irrefl r \<Longrightarrow> s \<subseteq> r \<Longrightarrow> irrefl s"
  "r = {} \<Longrightarrow> s \<subseteq> r \<Longrightarrow> s = {}"
  by (auto simp: acyclic_subset irrefl_def)

lemma ex_total_order_avoiding:
  "(\<exists>R \<in> total_orders S. R \<inter> H = {} \<and> P R)
   \<longleftrightarrow> (\<exists>p \<in> set (perms_avoiding H (sorted_list_of_set S)). P (order_of p))"
  unfolding total_orders_def set_perms_avoiding set_map by blast

section \<open>Named event sets (hrf's tags)\<close>

definition reads :: "execution \<Rightarrow> event set" where "reads X = tag X ''R''"
definition writes :: "execution \<Rightarrow> event set" where "writes X = tag X ''W''"
definition accesses :: "execution \<Rightarrow> event set" where "accesses X = tag X ''M''"
definition init_writes :: "execution \<Rightarrow> event set" where "init_writes X = tag X ''IW''"
definition atomics :: "execution \<Rightarrow> event set" where "atomics X = tag X ''A''"
definition ordinary :: "execution \<Rightarrow> event set" where "ordinary X = tag X ''NA''"

text \<open>Thread events: every event but the initial writes.\<close>
definition thread_events :: "execution \<Rightarrow> event set" where
  "thread_events X = events X - init_writes X"

end
