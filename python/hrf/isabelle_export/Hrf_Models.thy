(* hrf base theory: SC, HRF-direct and HRF-indirect ([HRF14]), written by hand
   next to python/hrf/models/{sc,hrf_common,hrf_direct,hrf_indirect}.py.
   Other models are exported from hrf's DSL into a theory of their own. *)
theory Hrf_Models
  imports Hrf_Execution
begin

section \<open>Sequential consistency (Lamport; herd's sc.cat)\<close>

definition sc_order :: "execution \<Rightarrow> event rel" where
  "sc_order X = po X \<union> rf X \<union> co X \<union> fr X"

text \<open>RMW atomicity: no write comes between the write an RMW reads from and
  its own write (herd: empty rmw & (fre; coe)).\<close>
definition atomicity_violation :: "execution \<Rightarrow> event rel" where
  "atomicity_violation X = rmw X \<inter> (fr X O co X)"

definition sc_consistent :: "execution \<Rightarrow> bool" where
  "sc_consistent X \<longleftrightarrow> acyclic (sc_order X) \<and> atomicity_violation X = {}"

section \<open>Conflicts ([HRF14] sidebar "Conflict Definitions")\<close>

text \<open>Two thread accesses conflict: same location, at least one a write.\<close>
definition conflict :: "execution \<Rightarrow> event rel" where
  "conflict X = (Id_on (thread_events X)
                   O (loc X \<inter> ((writes X \<times> accesses X) \<union> (accesses X \<times> writes X)))
                   O Id_on (thread_events X)) - id_r X"

section \<open>HRF-direct and HRF-indirect ([HRF14] sidebars "Formal Definition of ...")\<close>

text \<open>Performed with respect to the same scope: the same static scope and the
  same instance of it (docs/readings.md, exact scope inclusion).\<close>
definition same_scope :: "execution \<Rightarrow> event rel" where
  "same_scope X = same_attr X ''sinst''"

text \<open>seq_cst atomics only ([HRF14] sec. 3): stores release, loads acquire.\<close>
definition releases :: "execution \<Rightarrow> event set" where
  "releases X = (atomics X \<inter> writes X) - init_writes X"

definition acquires :: "execution \<Rightarrow> event set" where
  "acquires X = atomics X \<inter> reads X"

text \<open>Scoped synchronization order, all scopes at once: a release and an
  acquire of the same scope instance, the acquire reading the release or a
  write coherence-after it (docs/readings.md: completes-before is co?; rf).\<close>
definition so :: "execution \<Rightarrow> event rel" where
  "so X = (Id_on (releases X) O opt X (co X) O rf X O Id_on (acquires X)) \<inter> same_scope X"

text \<open>HRF-direct: hhb.d = U_S (po | so_S)+, the closure inside the union; po
  itself also where no event has a scope instance (a program without
  atomics: the union over no instance is empty), as hrf_direct.py has it.\<close>
definition hhb_d :: "execution \<Rightarrow> event rel" where
  "hhb_d X = po X \<union> foreach X ''sinst'' (\<lambda>S. (po X \<union> (Id_on S O so X))\<^sup>+)"

text \<open>HRF-indirect: hhb.i = (po | U_S so_S)+.\<close>
definition hhb_i :: "execution \<Rightarrow> event rel" where
  "hhb_i X = (po X \<union> so X)\<^sup>+"

text \<open>Ordinary conflicts involve a data access; synchronization conflicts
  are between atomics of different scopes ([HRF14] "Conflict Definitions").\<close>
definition ordinary_conflict :: "execution \<Rightarrow> event rel" where
  "ordinary_conflict X = conflict X \<inter> ((ordinary X \<times> accesses X) \<union> (accesses X \<times> ordinary X))"

definition synchronization_conflict :: "execution \<Rightarrow> event rel" where
  "synchronization_conflict X = (conflict X \<inter> (atomics X \<times> atomics X)) - same_scope X"

text \<open>Heterogeneous race ([HRF14]): conflicting pairs unordered by hhb.\<close>
definition heterogeneous_race :: "execution \<Rightarrow> event rel \<Rightarrow> event rel" where
  "heterogeneous_race X hhb =
     (ordinary_conflict X \<union> synchronization_conflict X) - (hhb \<union> conv hhb)"

text \<open>Both models judge SC candidate executions; a program is
  heterogeneous-race-free when none of them has a heterogeneous race.\<close>
definition hrf_direct_consistent :: "execution \<Rightarrow> bool" where
  "hrf_direct_consistent X \<longleftrightarrow> sc_consistent X"

definition hrf_direct_race :: "execution \<Rightarrow> event rel" where
  "hrf_direct_race X = heterogeneous_race X (hhb_d X)"

definition hrf_indirect_consistent :: "execution \<Rightarrow> bool" where
  "hrf_indirect_consistent X \<longleftrightarrow> sc_consistent X"

definition hrf_indirect_race :: "execution \<Rightarrow> event rel" where
  "hrf_indirect_race X = heterogeneous_race X (hhb_i X)"

text \<open>[HRF14] sec. 4.1: every hhb.d edge is an hhb.i edge, so a program
  race-free under HRF-direct is race-free under HRF-indirect.\<close>
lemma hhb_d_in_hhb_i: "hhb_d X \<subseteq> hhb_i X"
proof
  fix p assume p: "p \<in> hhb_d X"
  show "p \<in> hhb_i X"
  proof (cases "p \<in> po X")
    case True
    then show ?thesis unfolding hhb_i_def by (meson UnI1 r_into_trancl')
  next
    case False
    with p obtain S where "p \<in> (po X \<union> (Id_on S O so X))\<^sup>+"
      by (auto simp: hhb_d_def foreach_def)
    moreover have "po X \<union> (Id_on S O so X) \<subseteq> po X \<union> so X"
      by auto
    ultimately show ?thesis
      unfolding hhb_i_def by (rule trancl_mono)
  qed
qed

end
