(* hrf: what a remote release hands over is fresh in every L1 of its device.
   [RSP15] sec. 5.2: a remote release flushes its work-group's L1, then
   invalidates every L1 of its device, then stores; so every work-group of
   the device finds, from then on, what the releaser knew. Promotion rests on
   it: a work-group-scope acquire of another work-group that reads the
   release invalidates nothing itself. Proved here for every program, under
   Hrf_Happens's invariants: in every reachable state, what a performed
   remote store knew is settled before every readable L1 line of its device
   (rp_ok). Hand-written; no sorry. *)
theory Hrf_Promotion
  imports Hrf_Happens
begin

section \<open>Code after an invalidation of the device's L1s\<close>

text \<open>Position n of code xs comes after an invalidation of the L1s of the
  device, or of every device, that a flush of the L1 precedes, with only
  quiet instructions between ([RSP15] sec. 5.2: the remote release's
  FLUL1; INVL1 DV before its store).\<close>
definition dinv :: "instr list \<Rightarrow> nat \<Rightarrow> bool" where
  "dinv xs n \<longleftrightarrow> (\<exists>j < n. (xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS) \<and> flushed xs j
     \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> quiet (xs ! m)))"

lemma dinv_append: "dinv ys m \<Longrightarrow> dinv (xs @ ys) (length xs + m)"
proof -
  assume "dinv ys m"
  then obtain j where j: "j < m" "ys ! j = INVL1 DV \<or> ys ! j = INVL1 SYS" "flushed ys j"
      "\<forall>k. j < k \<and> k < m \<longrightarrow> quiet (ys ! k)"
    unfolding dinv_def by blast
  have "flushed (xs @ ys) (length xs + j)" using flushed_append[OF j(3)] .
  moreover have "(xs @ ys) ! (length xs + j) = ys ! j" by (simp add: nth_append)
  moreover have "\<forall>k. length xs + j < k \<and> k < length xs + m \<longrightarrow> quiet ((xs @ ys) ! k)"
  proof (intro allI impI)
    fix k assume k: "length xs + j < k \<and> k < length xs + m"
    then have "(xs @ ys) ! k = ys ! (k - length xs)" by (simp add: nth_append)
    moreover have "j < k - length xs \<and> k - length xs < m" using k by linarith
    ultimately show "quiet ((xs @ ys) ! k)" using j(4) by simp
  qed
  ultimately show ?thesis unfolding dinv_def using j(1,2) by (intro exI[of _ "length xs + j"]) auto
qed

lemma dinv_prefix:
  assumes d: "dinv xs n" and n: "n \<le> length xs"
  shows "dinv (xs @ ys) n"
proof -
  obtain j where j: "j < n" "xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS" "flushed xs j"
      "\<forall>k. j < k \<and> k < n \<longrightarrow> quiet (xs ! k)"
    using d unfolding dinv_def by blast
  have "flushed (xs @ ys) j" using flushed_prefix[OF j(3)] j(1) n by simp
  moreover have "\<forall>k. j < k \<and> k < n \<longrightarrow> quiet ((xs @ ys) ! k)" using j(4) n by (simp add: nth_append)
  moreover have "(xs @ ys) ! j = xs ! j" using j(1) n by (simp add: nth_append)
  ultimately show ?thesis unfolding dinv_def using j(1,2) by (intro exI[of _ j]) auto
qed

text \<open>One position on: still after the invalidation, past a quiet
  instruction, or just past the invalidation.\<close>
lemma dinv_Suc:
  assumes "dinv xs (Suc n)"
  shows "(dinv xs n \<and> quiet (xs ! n)) \<or> ((xs ! n = INVL1 DV \<or> xs ! n = INVL1 SYS) \<and> flushed xs n)"
proof -
  obtain j where j: "j < Suc n" "xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS" "flushed xs j"
      "\<forall>k. j < k \<and> k < Suc n \<longrightarrow> quiet (xs ! k)"
    using assms unfolding dinv_def by blast
  show ?thesis
  proof (cases "j = n")
    case True
    then show ?thesis using j(2,3) by simp
  next
    case False
    then have jn: "j < n" using j(1) by simp
    then have "dinv xs n" unfolding dinv_def using j(2,3,4) by (intro exI[of _ j]) auto
    moreover have "quiet (xs ! n)" using j(4) jn by simp
    ultimately show ?thesis by blast
  qed
qed

text \<open>After the invalidation the thread is still past its flush.\<close>
lemma dinv_flushed:
  assumes "dinv xs n"
  shows "flushed xs n"
proof -
  obtain j where j: "j < n" "xs ! j = INVL1 DV \<or> xs ! j = INVL1 SYS" "flushed xs j"
      "\<forall>k. j < k \<and> k < n \<longrightarrow> quiet (xs ! k)"
    using assms unfolding dinv_def by blast
  obtain i where i: "i < j" "\<exists>sc. xs ! i = FLUL1 sc" "\<forall>k. i < k \<and> k < j \<longrightarrow> quiet (xs ! k)"
    using j(3) unfolding flushed_def by blast
  have q: "quiet (xs ! k)" if "i < k" "k < n" for k
  proof -
    consider "k < j" | "k = j" | "j < k" by linarith
    then show ?thesis using i(3) j(2,4) that by cases auto
  qed
  show ?thesis unfolding flushed_def using i(1,2) j(1) q by (intro exI[of _ i]) auto
qed

section \<open>The rows\<close>

text \<open>A remote store (the operations whose write promotes).\<close>
fun rstore_op :: "src_op \<Rightarrow> bool" where
  "rstore_op (Store sc rm) = rm"
| "rstore_op (Load sc rm) = False"
| "rstore_op (FetchInc sc rm) = False"

text \<open>A row whose visible instruction comes after an invalidation of the
  device's L1s that a flush precedes.\<close>
definition dinv_vis :: "row \<Rightarrow> bool" where
  "dinv_vis rw \<longleftrightarrow> (\<forall>r x. \<forall>m < length (rw r x). visible (rw r x ! m) \<longrightarrow> dinv (rw r x) m)"

text \<open>[RSP15] sec. 5.2: a remote store flushes its L1 and invalidates every
  L1 of its device before it stores (rsp-new's FLUL1 WG; INVL1 DV; ST, and
  its all-devices row's FLUL1 ALL; ...; INVL1 ALL; ST).\<close>
definition prom_rows :: "scheme \<Rightarrow> src_op set \<Rightarrow> src_op set \<Rightarrow> bool" where
  "prom_rows S A B \<longleftrightarrow> (\<forall>a \<in> A \<union> B. rstore_op a \<longrightarrow> (\<exists>rw. S a = Some rw \<and> dinv_vis rw))"

text \<open>For deciding rows by simp: a bounded range one longer.\<close>
lemma all_between_Suc: "(\<forall>m. j < m \<and> m < Suc n \<longrightarrow> P m) \<longleftrightarrow> (j < n \<longrightarrow> P n) \<and> (\<forall>m. j < m \<and> m < n \<longrightarrow> P m)"
  using less_Suc_eq by auto

lemmas dinv_simps = dinv_vis_def dinv_def flushed_def numeral_eq_Suc All_less_Suc Ex_less_Suc all_between_Suc

text \<open>So in code compiled by such rows, the access of a remote store comes
  after that invalidation.\<close>
lemma compiled_dinv:
  assumes rows: "l1_rows S A" "l2_rows S B" "prom_rows S A B" "\<forall>i \<in> set c. op_of i \<subseteq> A \<union> B"
    and n: "n < length (concat (map (compile_instr S) c))" "visible (concat (map (compile_instr S) c) ! n)"
    and k: "length (filter visible (take n (concat (map (compile_instr S) c)))) = k"
    and w: "c ! k = Op a r x" "rstore_op a"
  shows "dinv (concat (map (compile_instr S) c)) n"
proof -
  obtain rw pre post m where rw: "a \<in> A \<union> B" "S a = Some rw" "concat (map (compile_instr S) c) = pre @ rw r x @ post"
      "n = length pre + m" "m < length (rw r x)" "visible (rw r x ! m)"
    using compiled_row[OF rows(1,2,4) n k w(1)] by blast
  have "dinv_vis rw" using rows(3) w(2) rw(1,2) by (auto simp: prom_rows_def)
  then have "dinv (rw r x) m" using rw(5,6) unfolding dinv_vis_def by blast
  then have "dinv (rw r x @ post) m" using dinv_prefix[of "rw r x" m post] rw(5) by simp
  then show ?thesis using dinv_append[of "rw r x @ post" m pre] rw(3,4) by simp
qed

section \<open>A write fresh in every L1 of a device\<close>

text \<open>A write of device d (or the initial one) that has reached the L2, and
  is settled before every readable line of its location in every L1 of d.\<close>
definition fresh :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> did \<Rightarrow> sev \<Rightarrow> bool" where
  "fresh L S P s g d a \<longleftrightarrow> ga2 g a \<noteq> None \<and> (\<forall>u k p. a = Acc u k p \<longrightarrow> dv L a = Some d)
     \<and> (\<forall>v x. v \<in> wgs L \<and> dev_of L v = d \<and> readable (l1 s v x) \<and> wx S P s x a \<longrightarrow> sb L g a (h1 g v x))"

text \<open>An environment step keeps it: a line fetched copies the L2's, settled
  after every write of the device that has reached the L2.\<close>
lemma fresh_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and le: "l1_env L s s' g g'"
    and inv: "ginv L S P s g" and l2: "l2_ok L S P s g" and f: "fresh L S P s g d a"
  shows "fresh L S P s' g' d a"
  unfolding fresh_def
proof (intro conjI allI impI)
  show "ga2 g' a \<noteq> None" using f m by (simp add: fresh_def env_mono_def)
next
  fix u k p assume "a = Acc u k p"
  then show "dv L a = Some d" using f by (simp add: fresh_def)
next
  fix v x assume a: "v \<in> wgs L \<and> dev_of L v = d \<and> readable (l1 s' v x) \<and> wx S P s' x a"
  have li: "lines_inv S P s g" using inv by (simp add: ginv_def)
  have wa: "wx S P s x a" using a wx_same[OF pc] by simp
  from le a consider (same) "readable (l1 s v x)" "h1 g' v x = h1 g v x"
    | (fetch) "\<not> dirty (l1 s v x)" "readable (l2 s (dev_of L v) x)" "h1 g' v x = h2 g (dev_of L v) x"
    unfolding l1_env_def by blast
  then show "sb L g' a (h1 g' v x)"
  proof cases
    case same
    have "sb L g a (h1 g v x)" using f a wa same(1) unfolding fresh_def by blast
    moreover have "wx S P s x (h1 g v x)" using h1_wx[OF li same(1)] .
    ultimately show ?thesis using k wa same(2) unfolding sb_keep_def by metis
  next
    case fetch
    have hd: "a = Init x \<or> dv L a = Some (dev_of L v)" using f a by (cases a) (auto simp: fresh_def wx_def)
    have a2: "ga2 g a \<noteq> None" using f by (simp add: fresh_def)
    have "sb L g a (h2 g (dev_of L v) x)" using sb_l2_line[OF inv l2 hd wa a2 fetch(2)] .
    moreover have "wx S P s x (h2 g (dev_of L v) x)" using h2_wx[OF li fetch(2)] .
    ultimately show ?thesis using k wa fetch(3) unfolding sb_keep_def by metis
  qed
qed

text \<open>A thread step keeps it for a write performed before: a line kept
  keeps its write, a store or an increment in the L1 writes the newest.\<close>
lemma fresh_thread:
  assumes inv: "ginv L S P s g" and gi: "ginv L S P s' g'"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and ww: "wg_of L t \<in> wgs L" and c0: "0 < clk g" and f: "fresh L S P s g d a" and da: "done_ev S P s a"
  shows "fresh L S P s' g' d a"
proof -
  have ti: "time_inv S P s g" and li: "lines_inv S P s g" using inv by (simp_all add: ginv_def)
  have ti': "time_inv S P s' g'" and li': "lines_inv S P s' g'" using gi by (simp_all add: ginv_def)
  have so: "gt g' e = gt g e \<and> ga2 g' e = ga2 g e \<and> ga3 g' e = ga3 g e" if "done_ev S P s e" for e
    using gs that by (simp add: gstep_def)
  have ao: "gt g' a = gt g a" "ga2 g' a = ga2 g a" "ga3 g' a = ga3 g a" using so[OF da] by simp_all
  show ?thesis
    unfolding fresh_def
  proof (intro conjI allI impI)
    show "ga2 g' a \<noteq> None" using f ao by (simp add: fresh_def)
  next
    fix u k p assume "a = Acc u k p"
    then show "dv L a = Some d" using f by (simp add: fresh_def)
  next
    fix v y assume a: "v \<in> wgs L \<and> dev_of L v = d \<and> readable (l1 s' v y) \<and> wx S P s' y a"
    have wa: "wx S P s y a" using a da by (auto simp: wx_def)
    show "sb L g' a (h1 g' v y)"
    proof (cases "a = Init y")
      case True
      then show ?thesis using sb_Init[OF ti' h1_wx[OF li']] a by simp
    next
      case ni: False
      have r: "readable (l1 s' v y)" using a by blast
      from step_l1[OF st rows gv ww r] show ?thesis
      proof
        assume l: "readable (l1 s v y) \<and> h1 g' v y = h1 g v y
          \<and> (\<forall>sc. instrs (compile S P) t ! pc s t = INVL1 sc \<longrightarrow> v \<noteq> wg_of L t)"
        have "sb L g a (h1 g v y)" using f a wa l unfolding fresh_def by blast
        moreover have "done_ev S P s (h1 g v y)" using wx_done[OF h1_wx[OF li]] l by blast
        ultimately show ?thesis using sb_cong[of g' a g "h1 g v y"] ao so l by simp
      next
        assume l: "v = wg_of L t \<and> ((\<exists>w. instrs (compile S P) t ! pc s t = ST w y)
            \<or> (\<exists>r. instrs (compile S P) t ! pc s t = INCL1 r y)) \<and> (\<exists>p. h1 g' v y = Acc t (kd S P s t) p)"
        then obtain p where p: "h1 g' v y = Acc t (kd S P s t) p" by blast
        have "\<forall>r x. instrs (compile S P) t ! pc s t \<noteq> INCL2 r x" using l by auto
        note nf = new_line_facts[OF gi gs _ p this]
        have ad: "dv L a = Some (dev_of L v)"
        proof (cases a)
          case (Init z)
          then have "z = y" using wa by (auto simp: wx_def)
          then show ?thesis using ni Init by simp
        next
          case (Acc u' k' p')
          then show ?thesis using f a by (simp add: fresh_def)
        qed
        have home: "ga2 g a = None \<longrightarrow> ewg L a = Some v" "ga3 g a = None \<longrightarrow> dv L a = Some (dev_of L v)"
          using f ad unfolding fresh_def by auto
        show ?thesis by (rule sb_new_line[OF ti c0 wa home ao]) (use nf l a in auto)
      qed
    qed
  qed
qed

text \<open>An invalidation of the device's L1s leaves none of their lines
  readable.\<close>
lemma dinv_lines:
  assumes st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B"
    and i: "instrs (compile S P) t ! pc s t = INVL1 DV \<or> instrs (compile S P) t ! pc s t = INVL1 SYS"
    and v: "v \<in> wgs L" "dev_of L v = dev_of L (wg_of L t)"
  shows "\<not> readable (l1 s' v x)"
proof -
  obtain z where z: "exec L t (instrs (compile S P) t ! pc s t) s = Some z" "s' = set_pc t (Suc (pc s t)) z"
    by (rule step_shape[OF st rows]) blast
  have "v \<in> wgs_in L DV (wg_of L t)" "v \<in> wgs_in L SYS (wg_of L t)" using v by (auto simp: wgs_in_def)
  then show ?thesis using z i by (auto simp: set_pc_def)
qed

section \<open>The invariant\<close>

text \<open>A remote store of thread t at position k.\<close>
definition rstore :: "src_program \<Rightarrow> tid \<Rightarrow> nat \<Rightarrow> bool" where
  "rstore P t k \<longleftrightarrow> (\<exists>a r x. ins P t k = Op a r x \<and> rstore_op a)"

text \<open>While a thread is past the invalidation of its row, every write it
  knows is fresh in its device's L1s; and so is every write a performed
  remote store knew, other than the store's own.\<close>
definition rp_ok :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "rp_ok L S P s g \<longleftrightarrow>
     (\<forall>t \<in> src_threads P. dinv (instrs (compile S P) t) (pc s t) \<longrightarrow>
        (\<forall>x a. wx S P s x a \<and> knows L S P s g t a \<longrightarrow> fresh L S P s g (dev_of L (wg_of L t)) a))
   \<and> (\<forall>t k a. rstore P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s (Acc t k False)
        \<and> knows_at L P g (Acc t k False) a \<and> a \<noteq> Acc t k False \<longrightarrow> fresh L S P s g (dev_of L (wg_of L t)) a)"

lemma rp_ok_initial: "rp_ok L S P (initial (src_init P)) (ghost0 P)"
  by (simp add: rp_ok_def dinv_def initial_fields)

lemma rd_true: "\<not> rd c True"
  by (cases "(c, True)" rule: rd.cases) auto

text \<open>What a remote store knew, other than itself, is performed.\<close>
lemma knows_at_done:
  assumes ei: "ev_inv S P s g" and d: "done_ev S P s c" and k: "knows_at L P g c a"
  shows "done_ev S P s a \<and> (\<exists>y. wx S P s y a)"
proof -
  obtain b where b: "is_wr P b \<or> is_rd P b" "b = c \<or> (b, c) \<in> hbm L P g" "ob P g b = a"
    using k unfolding knows_at_def by blast
  have db: "done_ev S P s b" using b(2) hbm_done[OF ei _ d] d by blast
  obtain y where y: "sloc P b = Some y" using b(1) wr_loc[of P b] rd_addr by (cases b) (auto simp: acc_def)
  have "wx S P s y a" using ob_wx_done[OF ei b(1) db y] b(3) by simp
  then show ?thesis using wx_done by blast
qed

lemma rp_env:
  assumes pc: "pc s' = pc s" and m: "env_mono g g'" and k: "sb_keep L S P s g g'" and le: "l1_env L s s' g g'"
    and inv: "ginv L S P s g" and l2: "l2_ok L S P s g" and rp: "rp_ok L S P s g"
  shows "rp_ok L S P s' g'"
proof -
  have gr: "grf g' = grf g" using m by (simp add: env_mono_def)
  have kn: "knows L S P s' g' = knows L S P s g" using knows_same[OF pc gr] .
  have ka: "knows_at L P g' = knows_at L P g" unfolding knows_at_def[abs_def] hbm_def swm_def ob_def[abs_def] gr ..
  have ws: "wx S P s' = wx S P s" using wx_same[OF pc] .
  have ds: "done_ev S P s' = done_ev S P s" using done_same[OF pc] .
  note fe = fresh_env[OF pc m k le inv l2]
  show ?thesis
    unfolding rp_ok_def
  proof (intro conjI ballI allI impI)
    fix t x a assume t: "t \<in> src_threads P" and d: "dinv (instrs (compile S P) t) (pc s' t)"
      and a: "wx S P s' x a \<and> knows L S P s' g' t a"
    have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp t d a pc ws kn unfolding rp_ok_def by auto
    then show "fresh L S P s' g' (dev_of L (wg_of L t)) a" using fe by blast
  next
    fix t k a assume a: "rstore P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s' (Acc t k False)
      \<and> knows_at L P g' (Acc t k False) a \<and> a \<noteq> Acc t k False"
    have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp a ds ka unfolding rp_ok_def by auto
    then show "fresh L S P s' g' (dev_of L (wg_of L t)) a" using fe by blast
  qed
qed

text \<open>A step that performs nothing leaves what every thread knows.\<close>
lemma knows_quiet:
  assumes ei: "ev_inv S P s g" and gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r"
    and dn: "\<forall>e. done_ev S P s' e \<longrightarrow> done_ev S P s e" and k: "knows L S P s' g' u a"
  shows "knows L S P s g u a"
  using knows_new[OF ei gr _ k, of "Suc u"] dn by simp

lemma rp_thread:
  assumes inv: "ginv L S P s g" and oi: "oinv L S P s g" and kh: "kh_ok L S P s g" and t: "t \<in> src_threads P"
    and st: "step_thread L (compile S P) t s = Some s'"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "prom_rows S A B"
    and wp: "well_placed L P" and dcf: "dev_conflicts L P" and gi: "ginv L S P s' g'"
    and gs: "gstep P (done_ev S P s) (done_ev S P s') (instrs (compile S P) t ! pc s t) g g'"
    and gv: "gview L t (kd S P s t) (instrs (compile S P) t ! pc s t) g g'"
    and c0: "0 < clk g" and rp: "rp_ok L S P s g"
  shows "rp_ok L S P s' g'"
proof -
  let ?xs = "instrs (compile S P) t" and ?n = "pc s t" and ?k = "kd S P s t" and ?w0 = "wg_of L t"
  let ?i = "?xs ! ?n"
  note se = step_events[OF inv t st rows(1-3) gs gv]
  have ei: "ev_inv S P s g" using inv by (simp add: ginv_def)
  have ei': "ev_inv S P s' g'" using gi by (simp add: ginv_def)
  have gr: "\<forall>r. done_ev S P s r \<longrightarrow> grf g' r = grf g r" using se(3) by blast
  have new: "(\<exists>p. e = Acc t ?k p) \<and> visible ?i" if "done_ev S P s' e" "\<not> done_ev S P s e" for e
    using se(1)[OF that] .
  have dn: "\<forall>e. sthread e \<noteq> Some t \<longrightarrow> done_ev S P s' e \<longrightarrow> done_ev S P s e" using new by fastforce
  obtain z where z: "?n < length ?xs" "exec L t ?i s = Some z" "\<not> unflushed L s t" "visible ?i \<or> quiet ?i"
      "s' = set_pc t (Suc ?n) z" "pc z = pc s" "kd S P s' t = (if visible ?i then Suc ?k else ?k)"
      "\<forall>u. u \<noteq> t \<longrightarrow> kd S P s' u = kd S P s u"
    by (rule step_shape[OF st rows(1-3)]) blast
  have pc': "pc s' = (pc s)(t := Suc ?n)" using z(5,6) by (simp add: set_pc_def)
  have ww: "wg_of L t \<in> wgs L" using wp t by (simp add: well_placed_def)
  note ft = fresh_thread[OF inv gi st rows(1-3) gs gv ww c0]
  have wd: "done_ev S P s a" if "wx S P s y a" for y a using wx_done[OF that] .
  \<comment> \<open>a step that is not visible performs nothing\<close>
  have qd: "\<forall>e. done_ev S P s' e \<longrightarrow> done_ev S P s e" if "\<not> visible ?i"
    using new that by blast
  show ?thesis
    unfolding rp_ok_def
  proof (intro conjI ballI allI impI)
    fix u x a assume u: "u \<in> src_threads P" and d: "dinv (instrs (compile S P) u) (pc s' u)"
      and a: "wx S P s' x a \<and> knows L S P s' g' u a"
    show "fresh L S P s' g' (dev_of L (wg_of L u)) a"
    proof (cases "u = t")
      case False
      have ku: "knows L S P s g u a" using knows_new[OF ei gr dn _ False] a by blast
      have da: "done_ev S P s a"
      proof (cases "done_ev S P s a")
        case False
        have "done_ev S P s' a" using a wx_done by blast
        then obtain p where "a = Acc t ?k p" using new False by blast
        then show ?thesis using knows_old[OF ei ku] \<open>u \<noteq> t\<close> by auto
      qed
      have wa: "wx S P s x a" using a da by (auto simp: wx_def)
      have "dinv (instrs (compile S P) u) (pc s u)" using d pc' False by simp
      then have "fresh L S P s g (dev_of L (wg_of L u)) a" using rp u wa ku unfolding rp_ok_def by blast
      then show ?thesis using ft da by blast
    next
      case ut: True
      have ds: "dinv ?xs (Suc ?n)" using d pc' ut by simp
      have nv: "\<not> visible ?i"
      proof
        assume "visible ?i"
        then show False using dinv_Suc[OF ds] by (cases ?i) auto
      qed
      have dq: "\<forall>e. done_ev S P s' e \<longrightarrow> done_ev S P s e" using qd[OF nv] .
      have ku: "knows L S P s g t a" using knows_quiet[OF ei gr dq] a ut by blast
      have da: "done_ev S P s a" using dq a wx_done by blast
      have wa: "wx S P s x a" using a da by (auto simp: wx_def)
      from dinv_Suc[OF ds] show ?thesis
      proof
        assume "dinv ?xs ?n \<and> quiet ?i"
        then have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp t wa ku unfolding rp_ok_def by blast
        then show ?thesis using ft da ut by blast
      next
        assume iv: "(?i = INVL1 DV \<or> ?i = INVL1 SYS) \<and> flushed ?xs ?n"
        have a2: "ga2 g a \<noteq> None" using known_flushed[OF oi kh t wp _ z(3) wa ku] iv by blast
        have a2': "ga2 g' a \<noteq> None" using a2 gs da by (simp add: gstep_def)
        have hd: "dv L a = Some (dev_of L ?w0)" if "a = Acc u' k' p'" for u' k' p'
        proof (cases "sthread a = Some t")
          case True
          then show ?thesis by (cases a) (auto simp: dv_def)
        next
          case False
          then obtain b c where bc: "is_wr P b \<or> is_rd P b" "done_ev S P s c" "sthread c = Some t"
              "b = c \<or> (b, c) \<in> hbm L P g" "ob P g b = a"
            using ku unfolding knows_def by blast
          have "knows_at L P g c a" unfolding knows_at_def using bc(1,4,5) by blast
          then have "a = Init x \<or> dv L a = Some (dev_of L ?w0)" using known_dv[OF dcf ei bc(2,3) _ wa] by blast
          moreover have "a \<noteq> Init x" using that by simp
          ultimately show ?thesis by blast
        qed
        have "\<not> readable (l1 s' v y)" if "v \<in> wgs L" "dev_of L v = dev_of L ?w0" for v y
          using dinv_lines[OF st rows(1-3) _ that] iv by blast
        then show ?thesis unfolding fresh_def using a2' hd ut by blast
      qed
    qed
  next
    fix u k a assume a: "rstore P u k \<and> is_wr P (Acc u k False) \<and> done_ev S P s' (Acc u k False)
      \<and> knows_at L P g' (Acc u k False) a \<and> a \<noteq> Acc u k False"
    let ?w = "Acc u k False"
    show "fresh L S P s' g' (dev_of L (wg_of L u)) a"
    proof (cases "done_ev S P s ?w")
      case True
      have "knows_at L P g ?w a" using knows_at_keep[OF ei gr True] a by simp
      then have "fresh L S P s g (dev_of L (wg_of L u)) a" "done_ev S P s a"
        using rp a True knows_at_done[OF ei True] unfolding rp_ok_def by blast+
      then show ?thesis using ft by blast
    next
      case nw: False
      obtain p where wk: "?w = Acc t ?k p" and vis: "visible ?i" using new a nw by blast
      have ut: "u = t" and kk: "k = ?k" using wk by simp_all
      \<comment> \<open>what the store knew, its thread knew before the step\<close>
      obtain b where b: "is_wr P b \<or> is_rd P b" "b = ?w \<or> (b, ?w) \<in> hbm L P g'" "ob P g' b = a"
        using a unfolding knows_at_def by blast
      have nrw: "\<not> is_rd P ?w" using a by (auto dest: rd_wr)
      have bw: "(b, ?w) \<in> hbm L P g'" using b(2,3) a nrw by (auto simp: ob_def)
      have po_new: "sthread y = Some t" if "(y, c') \<in> src_po P" "\<not> done_ev S P s c'" "done_ev S P s' c'" for y c'
        using that new[OF that(3,2)] by (auto simp: src_po_def)
      have nd: "\<not> done_ev S P s (Acc t ?k q)" for q by simp
      have od: "done_ev S P s (Acc t j q)" if "j < ?k" for j q using that by simp
      have rdold: "done_ev S P s (grf g' r)" if rr: "is_rd P r" "done_ev S P s' r" for r
      proof (cases "done_ev S P s r")
        case True
        then show ?thesis using gr ev_parts(2)[OF ei] rr(1) by metis
      next
        case False
        obtain q where "r = Acc t ?k q" using new[OF rr(2) False] by blast
        then have "r = Acc t ?k False" using rr(1) rd_true by (cases q) (auto simp: acc_def)
        then show ?thesis using rr(1) a ut kk nrw by simp
      qed
      have db: "done_ev S P s b"
      proof (rule ccontr)
        assume "\<not> done_ev S P s b"
        moreover have "done_ev S P s' b" using hbm_done[OF ei' bw] a by blast
        ultimately have "?w = Acc t ?k True" using hbm_from_new[OF ei' _ nd od rdold bw] new a by blast
        then show False by simp
      qed
      have hn: "\<not> done_ev S P s b \<or> (\<exists>y. (b = y \<or> (b, y) \<in> hbm L P g) \<and> done_ev S P s b \<and> done_ev S P s y
         \<and> (sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)))"
        by (rule hbm_into_new[OF ei ei' gr bw _ nw]) (use po_new a in blast)+
      obtain y where y: "b = y \<or> (b, y) \<in> hbm L P g" "done_ev S P s y"
          "sthread y = Some t \<or> (\<exists>r. (y, r) \<in> swm L P g' \<and> \<not> done_ev S P s r \<and> done_ev S P s' r)"
        using hn db by blast
      have "sthread y = Some t"
      proof (rule ccontr)
        assume "sthread y \<noteq> Some t"
        then obtain r where r: "(y, r) \<in> swm L P g'" "\<not> done_ev S P s r" "done_ev S P s' r" using y(3) by blast
        have "is_rd P r" using r(1) by (simp add: swm_def)
        moreover obtain q where "r = Acc t ?k q" using new[OF r(3,2)] by blast
        ultimately show False using a ut kk nrw rd_true by (cases q) (auto simp: rstore_def ins_def acc_def dest: rd_wr)
      qed
      have ob: "ob P g' b = ob P g b" using gr db by (simp add: ob_def)
      have ku: "knows L S P s g t a" unfolding knows_def
        by (rule disjI2, rule exI[of _ b], rule exI[of _ y]) (use b(1,3) y(1,2) \<open>sthread y = Some t\<close> ob in auto)
      have "knows_at L P g y a" unfolding knows_at_def using b(1,3) y(1) ob by auto
      then obtain x where wa: "wx S P s x a" and da: "done_ev S P s a" using knows_at_done[OF ei y(2)] by blast
      \<comment> \<open>the store's position comes after the invalidation of its row\<close>
      have ik: "?i = src_access B (src_code P t ! ?k) \<and> ?k < length (src_code P t)" using se(2)[OF vis] .
      obtain a0 r0 x0 where op: "src_code P t ! ?k = Op a0 r0 x0" and ra: "rstore_op a0"
        using a ut kk by (auto simp: rstore_def ins_def)
      have ops: "\<forall>c \<in> set (src_code P t). op_of c \<subseteq> A \<union> B" using rows(3) t by (auto simp: ops_of_def)
      have xs: "?xs = concat (map (compile_instr S) (src_code P t))" by (simp add: compile_def)
      have "dinv (concat (map (compile_instr S) (src_code P t))) ?n"
        by (rule compiled_dinv[OF rows(1,2,4) ops _ _ _ op ra]) (use z(1) vis xs in \<open>simp_all add: kd_def\<close>)
      then have "dinv ?xs ?n" using xs by simp
      then have "fresh L S P s g (dev_of L (wg_of L t)) a" using rp t wa ku unfolding rp_ok_def by blast
      then show ?thesis using ft da ut by blast
    qed
  qed
qed

section \<open>In every reachable state\<close>

lemma rp_reachable:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B"
      "prom_rows S A B"
    and wp: "well_placed L P" and sc: "scoped_conflicts L P" and dcf: "dev_conflicts L P"
  shows "\<exists>g. ginv L S P s g \<and> oinv L S P s g \<and> wr_ok L S P s g \<and> l2_ok L S P s g \<and> hb_ok L S P s g
    \<and> rp_ok L S P s g"
proof -
  have "(initial (src_init P), s) \<in> (step L wb (compile S P))\<^sup>*"
    using reach by (simp add: reachable_def)
  then show ?thesis
  proof induction
    case base
    show ?case
      by (intro exI[of _ "ghost0 P"] conjI ginv_initial oinv_initial wr_ok_initial l2_ok_initial hb_ok_initial
          rp_ok_initial)
  next
    case (step s1 s2)
    then obtain g where g: "ginv L S P s1 g" "oinv L S P s1 g" "wr_ok L S P s1 g" "l2_ok L S P s1 g" "hb_ok L S P s1 g"
      "rp_ok L S P s1 g"
      by blast
    have c0: "0 < clk g" using wr_okD(1)[OF g(3)] .
    have kh: "kh_ok L S P s1 g" using g(5) by (simp add: hb_ok_def)
    have "threads (compile S P) = src_threads P" by (simp add: compile_def)
    then consider (thr) t where "t \<in> src_threads P" "step_thread L (compile S P) t s1 = Some s2"
      | (env) "s2 \<in> env_step L wb s1"
      using step.hyps(2) unfolding step_def by blast
    then show ?case
    proof cases
      case thr
      obtain g' where g': "ginv L S P s2 g'" "oinv L S P s2 g'" "wr_ok L S P s2 g'" "l2_ok L S P s2 g'"
          "gstep P (done_ev S P s1) (done_ev S P s2) (instrs (compile S P) t ! pc s1 t) g g'"
          "gview L t (kd S P s1 t) (instrs (compile S P) t ! pc s1 t) g g'"
        using oinv_thread[OF g(1,2) thr rows(1-4) wp] g(3,4) rows(5) by blast
      have "hb_ok L S P s2 g'" by (rule hb_thread[OF g(1,2,3) thr rows(1-3,6) wp sc g'(1,5,6) g(5)])
      moreover have "rp_ok L S P s2 g'"
        by (rule rp_thread[OF g(1,2) kh thr rows(1-3,7) wp dcf g'(1,5,6) c0 g(6)])
      ultimately show ?thesis using g' by blast
    next
      case env
      obtain g' where g': "ginv L S P s2 g'" "oinv L S P s2 g'" "wr_ok L S P s2 g'" "l2_ok L S P s2 g'" "env_mono g g'"
          "sb_keep L S P s1 g g'" "l1_env L s1 s2 g g'"
        using oinv_env[OF g(1,2) env] g(3,4) c0 by blast
      have pc: "pc s2 = pc s1" using env_step_regs_pc_locks[OF env] by simp
      have "hb_ok L S P s2 g'" using hb_env pc g'(5) g(5) by blast
      moreover have "rp_ok L S P s2 g'" using rp_env[OF pc g'(5,6,7) g(1,4,6)] .
      ultimately show ?thesis using g' by blast
    qed
  qed
qed

section \<open>The theorem\<close>

text \<open>What every performed remote store knew, its own write excepted, has
  reached the L2, is of its device (or the initial write), and is settled
  before every readable line of its location in every L1 of that device.\<close>
definition rp_fresh :: "layout \<Rightarrow> scheme \<Rightarrow> src_program \<Rightarrow> state \<Rightarrow> ghost \<Rightarrow> bool" where
  "rp_fresh L S P s g \<longleftrightarrow> (\<forall>t k a. rstore P t k \<and> is_wr P (Acc t k False) \<and> done_ev S P s (Acc t k False)
     \<and> knows_at L P g (Acc t k False) a \<and> a \<noteq> Acc t k False \<longrightarrow> fresh L S P s g (dev_of L (wg_of L t)) a)"

text \<open>For every race-free program (OpenCL+RSP) whose remote operations
  promote nothing, without non-atomic RMWs, whose conflicting accesses sit
  on one device, of any length and thread count, compiled by rows like
  rsp-new's (a release flushes first; a remote store flushes and then
  invalidates every L1 of its device before it stores), on every layout,
  under both write-back policies: in every reachable state, what a
  performed remote store knew is fresh in every L1 of its device.\<close>
theorem machine_remote_release_fresh:
  assumes reach: "s \<in> reachable L wb (compile S P) (initial (src_init P))"
    and rows: "l1_rows S A" "l2_rows S B" "ops_of P \<subseteq> A \<union> B" "l2_flushed S B" "l2_invalidated S B" "rel_rows S A B"
      "prom_rows S A B"
    and wp: "well_placed L P" and dcf: "dev_conflicts L P"
    and nr: "\<not> na_rmw P" and rfree: "\<not> src_racy opencl_rsp_consistent opencl_rsp_data_race L P" and rem: "no_promotion L P"
  shows "\<exists>g. ginv L S P s g \<and> rp_fresh L S P s g"
proof -
  have fin: "finite (src_threads P)" using wp by (simp add: well_placed_def)
  have sc: "scoped_conflicts L P" using race_free_scoped[OF nr rfree fin rem] .
  show ?thesis using rp_reachable[OF reach rows wp sc dcf] unfolding rp_ok_def rp_fresh_def by blast
qed

end
