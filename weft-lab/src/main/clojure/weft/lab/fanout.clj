(ns weft.lab.fanout
  "Lab scenario `fanout` (article 000): N HTTP GETs against an endpoint on 127.0.0.1 that
  waits 1 s before it answers (dev.weft.lab.scenarios.fanout.WaitServer, in a JVM of its
  own), made six ways:
    core-async-go                 `go` with the blocking call inside (what the article did)
    core-async-thread             core.async `thread` per request
    core-async-pipeline-blocking  core.async `pipeline-blocking` with n = N
    virtual-threads               one plain virtual thread per request: the reference
    weft-process                  one weft.async process per request, in a scope
    weft-pipeline                 weft.async `pipeline` with n = N, in a scope
  and the three core.async variants again with weft as core.async's executor factory
  (-Dclojure.core.async.executor-factory=weft.async/executor-factory), unchanged code:
    core-async-go+weft, core-async-thread+weft, core-async-pipeline-blocking+weft
  in a JVM of their own (core.async reads the factory once per JVM) against the same server:
  it starts with the scenario and loads and warms up while this JVM warms up, then measures
  its part of round i right after this JVM's part (never at the same time): the +weft variants
  in a new order with one run of virtual-threads among them, the reference their round i pairs
  with (the same JVM at the same moment; pairing with this JVM's virtual-threads carried the
  two JVMs' differences into the ratios, decision 0858). That JVM also runs article 000's
  headline: 100 go blocks each making the blocking call that waits 1 s (N = 20 against 200 ms
  in smoke mode).
  Every variant makes the same blocking call: an HTTP/1.1 GET written to a socket and its
  answer read back (KeptAliveGets, decision 0878: the client adds the least CPU per call and
  starts no thread). Each part of a round has a client of its own, which first opens the N
  connections the part's runs then reuse (`with-client`), so that a run measures N blocking
  calls, not N connection set-ups. Per variant: wall time, peak platform threads of this JVM
  (SchedulerSampler, through weft.async's measure-threads), requests in flight at once on the
  server, the connections they came on and how many of those were new, errors, lost workers,
  and whether the calls ran on virtual threads. core.async's cached pools are emptied between
  variants (their idle threads would otherwise count in the next variant's peak).

  Sizes: smoke N = 20 against a 200 ms wait, one round; quick N = 1,000, after a warm-up of
  every variant at N = 500 (full: at the first size, at most 2,000); full N = 100 (the
  article's size, plain variant names) and N = 10,000 (names `<variant>@10000`), and at
  N = 10,000 once more the article's own way of collecting results, which loses most of them.
  Rounds (dev.weft.lab.scenarios.fanout.RoundPlan, decision 0858): smoke one; full five of every
  variant; quick three, core.async's own variants (which decide no goal) in the first only, and
  up to six while a wall-time goal is inconclusive, each later round only if it ends within the
  budget (so the scenario keeps its budget by construction; a loaded machine gets fewer rounds),
  a round past the third running only the parts whose goals are still inconclusive. Each round
  runs the variants in a new order; a variant's figures are those of its median round (every
  round's time is kept in extras; a +weft variant's extras also keep its reference's, in
  `virtual_threads_same_jvm_ms` and `virtual_threads_same_jvm_threads`). The +weft JVM warms up
  as this one does (not in smoke mode), at the same time."
  (:require [clojure.core.async :as a]
            [clojure.core.async.impl.dispatch :as dispatch]
            [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [weft.async :as wa]
            [weft.lab.scenario :as lab]
            [weft.scope :refer [with-scope]])
  (:import (dev.weft.lab ChildJvm Goal ScenarioContext)
           (dev.weft.lab.scenarios.fanout KeptAliveGets RoundPlan)
           (java.time Duration Instant)
           (java.util.concurrent ThreadPoolExecutor TimeUnit)
           (java.util.concurrent.atomic AtomicLong)))

(set! *warn-on-reflection* true)

;; ---------------------------------------------------------------------------------------
;; The endpoint

(defn- start-server!
  "Starts the WaitServer JVM and returns its port (waits at most 60 s for it to listen)."
  [^ScenarioContext ctx max-seconds]
  (let [server (.startJvm ctx "fanout-server"
                          ;; a part's client keeps its N connections open between its runs (`with-client`):
                          ;; the JDK's server would close all but 200 idle ones, and any idle for 30 s
                          ["-Dsun.net.httpserver.nodelay=true" "-Dsun.net.httpserver.maxIdleConnections=20000"
                           "-Dsun.net.httpserver.idleInterval=600" "-XX:+UseSerialGC"]
                          "dev.weft.lab.scenarios.fanout.WaitServer" [(str max-seconds)])]
    (Long/parseLong (.strip (.await server "listening" (Duration/ofSeconds 60))))))

(defn- server-stats
  "[max-in-flight served connections new-connections] since the last reset (WaitServer's /stats),
  asked through `client` (a KeptAliveGets); with `reset?` starts a new count."
  [^KeptAliveGets client reset?]
  (mapv #(Long/parseLong %) (.split (.getText client (str "/stats" (when reset? "?reset"))) " ")))

;; ---------------------------------------------------------------------------------------
;; The six ways to make N calls. Each takes `call` (no arguments: one blocking GET, returning
;; its outcome) and N, and returns the N outcomes.

(defn- core-async-go
  "One `go` block per call, its result taken from the channel `go` returns."
  [call n]
  (mapv a/<!! (mapv (fn [_] (a/go (call))) (range n))))

(def ^:private give-up-ms 10000)

(defn- core-async-go-shared-channel
  "The article's own code: every `go` block puts its result on one `(chan 1)` with `>!`,
  and a `go-loop` collects N values. Beyond 1,024 puts waiting on that channel core.async
  throws them away (AssertionError in the go block), so the loop gives up `give-up-ms`
  after the last value it got; returns what it collected."
  [call n]
  (let [ch (a/chan 1)]
    (dotimes [_ n]
      (a/go (a/>! ch (call))))
    (a/<!! (a/go-loop [i n acc []]
             (if (pos? i)
               (let [[v port] (a/alts! [ch (a/timeout give-up-ms)])]
                 (if (= port ch) (recur (dec i) (conj acc v)) acc))
               acc)))))

(defn- core-async-thread [call n]
  (mapv a/<!! (mapv (fn [_] (a/thread (call))) (range n))))

(defn- filled
  "A closed channel holding 0 .. n-1, made without a go block."
  [n]
  (let [c (a/chan n)]
    (dotimes [i n] (a/offer! c i))
    (a/close! c)
    c))

(defn- drain [c]
  (loop [acc []]
    (if-some [v (a/<!! c)]
      (recur (conj acc v))
      acc)))

(defn- core-async-pipeline-blocking [call n]
  (let [to (a/chan n)]
    (a/pipeline-blocking n to (map (fn [_] (call))) (filled n))
    (drain to)))

(defn- virtual-threads [call n]
  (let [out (object-array n)
        threads (mapv (fn [i] (Thread/startVirtualThread (fn [] (aset out i (call))))) (range n))]
    (doseq [^Thread t threads] (.join t))
    (vec out)))

(defn- weft-process [call n]
  (with-scope [_]
    (mapv wa/<!! (mapv (fn [_] (wa/process (call))) (range n)))))

(defn- weft-pipeline [call n]
  (with-scope [_]
    (let [to (a/chan n)]
      (wa/pipeline n to (map (fn [_] (call))) (filled n))
      (drain to))))

(def ^:private variants
  [["core-async-go" core-async-go]
   ["core-async-thread" core-async-thread]
   ["core-async-pipeline-blocking" core-async-pipeline-blocking]
   ["virtual-threads" virtual-threads]
   ["weft-process" weft-process]
   ["weft-pipeline" weft-pipeline]])

(def ^:private reference
  "The reference every wall-time goal divides by, in each JVM."
  RoundPlan/REFERENCE)

(def ^:private factory-property "clojure.core.async.executor-factory")

(def ^:private weft-variants
  "The core.async variants, unchanged, in a JVM where weft is core.async's executor factory."
  [["core-async-go+weft" core-async-go]
   ["core-async-thread+weft" core-async-thread]
   ["core-async-pipeline-blocking+weft" core-async-pipeline-blocking]])

(def ^:private published
  "What the article measured for N = 100 against a remote server, per variant that matches
  one of its runs: go blocks on core.async 1.9.829-alpha2 with vthreads=target (virtual
  threads), and with vthreads=avoid (platform threads, which is what `go` is again in
  1.9.865)."
  {"core-async-go" {:ms 4712.404833 :threads 107}
   "virtual-threads" {:ms 3652.99125 :threads 25}
   "weft-process" {:ms 3652.99125 :threads 25}})

;; ---------------------------------------------------------------------------------------
;; Measuring

(defn- empty-core-async-pools!
  "Lets the idle threads of core.async's cached pools end now, so that a variant's peak
  counts only the threads it needs itself (they would otherwise idle for 60 s)."
  []
  (doseq [workload [:mixed :compute]]
    (let [e (dispatch/executor-for workload)]
      (when (instance? ThreadPoolExecutor e)
        (let [^ThreadPoolExecutor e e
              keep-alive (.getKeepAliveTime e TimeUnit/NANOSECONDS)]
          (.setKeepAliveTime e 1 TimeUnit/MILLISECONDS)
          (loop [i 0]
            (when (and (pos? (.getPoolSize e)) (< i 500))
              (Thread/sleep 10)
              (recur (inc i))))
          (.setKeepAliveTime e keep-alive TimeUnit/NANOSECONDS))))))

(defn- counting-uncaught-handler
  "A default uncaught-exception handler that counts what it gets, by exception class and
  the first line of its message, instead of printing thousands of stack traces."
  [counts]
  (reify Thread$UncaughtExceptionHandler
    (uncaughtException [_ _ e]
      (swap! counts update (str (.getName (class e)) ": " (first (str/split-lines (str (ex-message e)))))
             (fnil inc 0)))))

(defn- measure
  "Runs variant `f` once for `n` calls that each wait `wait-ms` on the server, through `client`
  (a part's, `with-client`); returns its figures."
  [f n wait-ms ^KeptAliveGets client ^KeptAliveGets stats-client]
  (empty-core-async-pools!)
  (System/gc)
  (let [path (str "/wait?ms=" wait-ms)
        on-virtual (AtomicLong.)
        call (fn []
               (when (.isVirtual (Thread/currentThread)) (.incrementAndGet on-virtual))
               (try (.get client path)
                    (catch Exception e (.getName (class e)))))
        uncaught (atom {})
        before (Thread/getDefaultUncaughtExceptionHandler)
        _ (server-stats stats-client true)
        m (try
            (Thread/setDefaultUncaughtExceptionHandler (counting-uncaught-handler uncaught))
            (wa/measure-threads #(f call n))
            (finally
              (Thread/setDefaultUncaughtExceptionHandler before)))
        [in-flight served connections opened] (server-stats stats-client false)
        outcomes (:value m)]
    {:ms (:wall-ms m)
     :n n
     :wait-ms wait-ms
     :peak-platform-threads (:peak-platform-threads m)
     :max-in-flight in-flight
     :served served
     :connections connections
     :connections-opened opened
     :completed (count outcomes)
     :errors (+ (- n (count outcomes)) (count (remove #(= 200 %) outcomes)))
     :error-kinds (frequencies (remove #(= 200 %) outcomes))
     :uncaught @uncaught
     :on-virtual-threads (.get on-virtual)
     :processes-started (:processes-started m)
     :scheduler (:scheduler m)}))

(defn- open-connections!
  "Makes `client` hold `n` open connections to the server: `n` calls at once, each held on the
  server long enough that all `n` are in flight together. Each needs an HTTP/1.1 connection of
  its own, which the client keeps for the next calls. The hold doubles from 300 ms until the
  server saw `n` at once, at most 6 times; throws when it never did or a call failed. Returns
  {:tries :ms}: how many fan-outs it took, and how long in all."
  [^KeptAliveGets client n stats-client]
  (loop [hold-ms 300 tries 1 t0 (System/nanoTime)]
    (let [fig (measure virtual-threads n hold-ms client stats-client)]
      (cond
        (pos? (:errors fig))
        (throw (IllegalStateException. (format "opening %,d connections to the server failed: %s" n (:error-kinds fig))))
        (>= (:max-in-flight fig) n) {:tries tries :ms (/ (- (System/nanoTime) t0) 1e6)}
        (< tries 6) (recur (* 2 hold-ms) (inc tries) t0)
        :else
        (throw (IllegalStateException.
                (format (str "the client could not hold %,d calls at once on the server: at most %,d in %d tries,"
                             " the last holding each call %,d ms")
                        n (long (:max-in-flight fig)) tries hold-ms)))))))

(defn- with-client
  "Calls `(f client)` with a new KeptAliveGets and closes it after. With `open-n`, the client
  first opens that many connections (`open-connections!`, telling `progress` how long it took),
  so that the runs in `f`, N calls at once at most `open-n`, reuse them: they measure N blocking
  calls, not N connection set-ups on the server's one accepting thread, which spread the rounds
  by hundreds of milliseconds (decision 0878)."
  ([port stats-client f] (with-client port stats-client nil nil f))
  ([port stats-client open-n progress f]
   (with-open [client (KeptAliveGets. port)]
     (when open-n
       (let [{:keys [tries ms]} (open-connections! client open-n stats-client)]
         (progress (format "opened %,d connections in %.0f ms (%d fan-out%s)" open-n (double ms) tries
                           (if (= 1 tries) "" "s")))))
     (f client))))

(defn- lost-to
  "How many threads or go blocks died on an uncaught AssertionError about core.async's
  limit of 1,024 pending `kind` (\"takes\" or \"puts\") on one channel."
  [figures kind]
  (reduce + 0 (keep (fn [[k v]] (when (str/includes? k (str "pending " kind)) v)) (:uncaught figures))))

(defn- lost-workers
  "Workers core.async's pipeline lost to its pending-takes limit."
  [figures]
  (lost-to figures "takes"))

(defn- medians
  "{variant-name [figures per round]} -> {variant-name figures of its median round} (all of its
  figures come from that one run; an odd number of rounds makes it the true median), with every
  round's time and peak platform threads in :all-ms and :all-threads, and for a +weft variant the
  same of the reference it pairs with in its JVM, round by round, in :all-ref-ms and :all-ref-threads."
  [runs]
  (into {} (map (fn [[k figs]]
                  [k (cond-> (assoc (nth (sort-by :ms figs) (quot (count figs) 2))
                                    :all-ms (mapv :ms figs)
                                    :all-threads (mapv :peak-platform-threads figs))
                       (:ref-ms (first figs)) (assoc :all-ref-ms (mapv :ref-ms figs)
                                                     :all-ref-threads (mapv :ref-threads figs)))]))
        runs))

(defn- measure-each
  "Measures each of `vs` ([name f]) once at size `n` through `client`, in the order given, for
  round `round` (from 0); `progress` gets one line per run. Returns {variant-name figures}."
  [vs n wait-ms round client stats-client progress]
  (into {} (for [[vname f] vs]
             (let [fig (measure f n wait-ms client stats-client)]
               (progress (format (str "N=%,d round %d: %-34s %8.0f ms, peak %,5d platform threads, %,6d in flight"
                                      " on %,d connections (%,d new), %d errors")
                                 n (inc round) vname (double (:ms fig)) (long (:peak-platform-threads fig))
                                 (long (:max-in-flight fig)) (long (:connections fig)) (long (:connections-opened fig))
                                 (long (:errors fig))))
               [vname fig]))))

;; ---------------------------------------------------------------------------------------
;; The +weft variants, in a JVM of their own

(defn- core-async-version
  "The core.async on the classpath, from its jar's pom.properties (or \"unknown\")."
  []
  (or (some-> (io/resource "META-INF/maven/org.clojure/core.async/pom.properties")
              slurp
              (->> (re-find #"(?m)^version=(\S+)"))
              second)
      "unknown"))

(defn- weft-part
  "The +weft JVM's part of round `round` at size `n`: the +weft variants named `vnames`, in a new
  order, with one run of virtual-threads among them (RoundPlan/weftOrder), the reference each of
  them pairs with (the goal's \"wall time of virtual-threads\", measured in this JVM, at the same
  moment). Returns {variant-name figures}, each with the reference's :ref-ms and :ref-threads."
  [vnames n wait-ms round port stats-client progress]
  (let [fs (into {reference virtual-threads} weft-variants)
        order (RoundPlan/weftOrder (shuffle vnames) round)
        figs (with-client port stats-client n progress
               #(measure-each (mapv (fn [vname] [vname (fs vname)]) order) n wait-ms round % stats-client
                              progress))
        ref-fig (figs reference)]
    (into {} (for [vname vnames]
               [vname (assoc (figs vname)
                             :ref-ms (:ms ref-fig)
                             :ref-threads (:peak-platform-threads ref-fig))]))))

(defn -main
  "The +weft JVM, a dev.weft.lab.ChildJvm: `port sizes wait-ms warm-n` (sizes comma-separated).
  Warms up, says `ready`, then measures one part of a round at a time, when the parent's part of
  that round is over (the two JVMs never measure at the same time): on `go <n> <i> <variants>`
  (comma-separated) round i of size n (`weft-part`), saying `done <n> <i> {variant ms-per-ref-ms}`
  (EDN) after it. On `end` it measures the headline (100 go blocks, or 20 when wait-ms is below
  1000), and says `result` with {:sizes {n {variant [figures per round]}} :headline figures ...}
  as EDN."
  [port sizes wait-ms warm-n]
  (when-not (System/getProperty factory-property)
    (throw (IllegalStateException. (str "the +weft variants need -D" factory-property "=weft.async/executor-factory"))))
  (let [port (Long/parseLong port)
        sizes (set (map #(Long/parseLong %) (str/split sizes #",")))
        wait-ms (Long/parseLong wait-ms)
        warm-n (Long/parseLong warm-n)
        stats-client (KeptAliveGets. port)
        progress #(binding [*out* *err*] (println %))]
    (try
      ;; Each variant twice, the second time at twice the size: this JVM starts while the other
      ;; warms up, on the same cores, and after one pass its first round still ran the pipeline
      ;; 1.11-1.12x the reference where the second ran it 1.02-1.06x (decision 0878).
      (when (pos? warm-n)
        (with-client port stats-client
          (fn [client]
            (doseq [n [warm-n (* 2 warm-n)]
                    [vname f] (cons [reference virtual-threads] weft-variants)]
              (let [fig (measure f n 10 client stats-client)]
                (progress (format "warm-up: %s N=%,d against 10 ms waits, %.0f ms" vname n (double (:ms fig)))))))))
      (ChildJvm/tell "ready" "")
      (let [commands (.iterator (ChildJvm/commands)) ; one at a time: a seq would read ahead
            by-size (loop [by-size {}]
                      (let [command (when (.hasNext commands) (.next commands))
                            [verb n round vnames] (some-> ^String command (str/split #" "))]
                        (cond
                          (= verb "end") by-size
                          (and (= verb "go") vnames (sizes (parse-long n)))
                          (let [n (parse-long n)
                                round (parse-long round)
                                part (weft-part (str/split vnames #",") n wait-ms round port stats-client progress)]
                            (ChildJvm/tell "done" (str n " " round " "
                                                       (pr-str (update-vals part #(/ (double (:ms %)) (:ref-ms %))))))
                            (recur (reduce-kv (fn [m vname fig] (update-in m [n vname] (fnil conj []) fig)) by-size part)))
                          :else
                          (throw (IllegalStateException.
                                  (str "the parent JVM said " (pr-str command) " where \"go <n> <round> <variants>\""
                                       " (n one of " (str/join "," (sort sizes)) ") or \"end\" was due"))))))
            headline-n (if (< wait-ms 1000) 20 100)
            ;; the article's way: a new client, each go block's call on a connection of its own
            headline (with-client port stats-client #(measure core-async-go headline-n wait-ms % stats-client))]
        (progress (format "headline: %,d go blocks, %.0f ms, peak %d platform threads, %d calls on virtual threads"
                          headline-n (double (:ms headline)) (long (:peak-platform-threads headline))
                          (long (:on-virtual-threads headline))))
        (ChildJvm/tell "result" (pr-str {:sizes by-size
                                         :headline headline
                                         :executor (str (dispatch/executor-for :mixed))
                                         :core-async (core-async-version)})))
      (finally
        (.close stats-client)
        (shutdown-agents)))))

(defn- start-weft-jvm!
  "Starts the JVM of the +weft variants, with weft as core.async's executor factory (see `-main`);
  it loads and warms up while this one does. Returns its ChildJvm."
  ^ChildJvm [^ScenarioContext ctx port sizes wait-ms warm-n]
  ;; the JVM options of this one (the lab's defaults), plus the factory: only the executors differ
  (.startJvm ctx "fanout-weft" [(str "-D" factory-property "=weft.async/executor-factory")]
             "clojure.main"
             ["-m" "weft.lab.fanout" (str port) (str/join "," sizes) (str wait-ms) (str warm-n)]))

(defn- await-weft-jvm-ready!
  "Waits until the +weft JVM has warmed up, so that it is idle while this one measures."
  [^ChildJvm jvm]
  (.await jvm "ready" (Duration/ofSeconds 300)))

(defn- weft-part!
  "Lets the +weft JVM measure the +weft variants `vnames` (and its reference) in round `round` of
  size `n`, and waits until it is done; returns {variant-name its wall time / the reference's}."
  [^ChildJvm jvm n round vnames]
  (.send jvm (str "go " n " " round " " (str/join "," vnames)))
  (let [done (.await jvm "done" (Duration/ofSeconds 300))
        [said-n said-round ratios] (str/split done #" " 3)]
    (when-not (and (= said-n (str n)) (= said-round (str round)))
      (throw (IllegalStateException. (str "the +weft JVM said done " done " where round " round " of N=" n " was due; "
                                          (.tail jvm)))))
    (edn/read-string ratios)))

(defn- run-weft-jvm!
  "Lets the +weft JVM end (its headline follows its rounds), waits for its result and for it to
  end; the EDN map `-main` sent."
  [^ScenarioContext ctx ^ChildJvm jvm]
  (.send jvm "end")
  (let [result (.await jvm "result" (Duration/ofSeconds 300))
        exit (.awaitExit jvm (Duration/ofSeconds 60))]
    (when-not (zero? exit)
      (throw (IllegalStateException. (str "the +weft JVM exited with " exit "; " (.tail jvm)))))
    (doseq [line (str/split-lines (slurp (str (.log jvm))))]
      (when (re-find #"^(warm-up|opened|N=|headline)" line) (lab/progress! ctx (str "+weft JVM: " line))))
    (edn/read-string result)))

(def ^:private wall-target
  "Every wall-time goal's target: within 1.10x the wall time of virtual-threads."
  1.10)

(def ^:private main-goal-variants
  "The variants of this JVM whose wall-time goals pair with its virtual-threads."
  ["weft-process" "weft-pipeline"])

(defn- run-size
  "Measures size `n` in rounds that `plan` (a RoundPlan) lets run: each round this JVM's part
  (the platform part, core.async's own variants, when the plan says so, mixed in a new order
  with the reference and weft's own), then the +weft JVM's part (`weft-part!`). Returns
  {variant-name [figures per round]} of this JVM's variants; the +weft JVM keeps its own."
  [ctx ^RoundPlan plan ^ChildJvm weft-jvm n wait-ms port stats-client]
  (let [runs (atom {})
        weft-ratios (atom {})
        main-ratios (fn [vname]
                      (mapv #(/ (double (:ms %1)) (:ms %2)) (@runs vname) (@runs reference)))
        weft-names (mapv first weft-variants)
        main-names (set (cons reference main-goal-variants))]
    (loop []
      (let [undecided? #(Goal/undecided % wall-target Goal/AT_MOST)
            round (.next plan (Instant/now)
                         (boolean (some (comp undecided? main-ratios) main-goal-variants))
                         (filterv #(undecided? (get @weft-ratios % [])) weft-names)
                         weft-names)]
        (when round
          (let [i (.index round)
                vs (filter (fn [[vname _]] (or (and (.main round) (main-names vname))
                                               (and (.platform round) (not (main-names vname)))))
                           variants)
                t0 (System/nanoTime)
                figs (if (seq vs)
                       (with-client port stats-client n #(lab/progress! ctx %)
                         #(measure-each (shuffle vs) n wait-ms i % stats-client (fn [line] (lab/progress! ctx line))))
                       {})]
            ;; a main run among platform ones also waits for their 1,000 idle threads to end
            ;; (empty-core-async-pools!): no later round has that, so such a part plans none
            (when (and (seq vs) (not (.platform round)))
              (.ran plan (count vs) (Duration/ofNanos (- (System/nanoTime) t0))))
            (swap! runs #(reduce-kv (fn [m vname fig] (update m vname (fnil conj []) fig)) % figs))
            (when (seq (.weft round))
              (let [t0 (System/nanoTime)
                    ratios (weft-part! weft-jvm n i (.weft round))]
                (.ran plan (.weftRuns round) (Duration/ofNanos (- (System/nanoTime) t0)))
                (swap! weft-ratios #(reduce-kv (fn [m vname r] (update m vname (fnil conj []) r)) % ratios))))
            (recur)))))
    @runs))

(defn- report-size!
  "Reports the six variants of one size; `suffix` names them (\"\" or \"@10000\")."
  [ctx n wait-ms figures suffix]
  (let [reference (figures "virtual-threads")
        ref-ms (double (:ms reference))
        ref-threads (double (:peak-platform-threads reference))
        ;; at N = 10,000 two cores run client and server: the reference, not the wait, is the floor
        cpu-bound? (> n 1000)
        limit (if cpu-bound? ref-ms (double wait-ms))]
    (doseq [[vname _] (concat variants weft-variants)
            :when (figures vname)]
      (let [fig (figures vname)
            ;; The article's figures are N = 100 against a remote server: not this setup, so they
            ;; are kept as extras and named in a note, never drawn as a published marker.
            pub (published vname)
            ;; a +weft variant's reference is the virtual-threads run of its own JVM and round
            same-jvm? (contains? fig :ref-ms)
            [vs-ms vs-threads] (if same-jvm?
                                 [(double (:ref-ms fig)) (double (:ref-threads fig))]
                                 [ref-ms ref-threads])]
        (lab/variant! ctx {:name (str vname suffix)
                           :unit "ms"
                           :value (:ms fig)
                           :limit limit
                           :limit-label (when cpu-bound? "virtual-threads in this run")
                           :rounds (:all-ms fig)
                           :peak-platform-threads (:peak-platform-threads fig)
                           :extra (cond-> {:n n
                                           :server_wait_ms wait-ms
                                           :peak_platform_threads (:peak-platform-threads fig)
                                           :max_in_flight (:max-in-flight fig)
                                           :completed (:completed fig)
                                           :errors (:errors fig)
                                           :error_kinds (update-keys (:error-kinds fig) str)
                                           :lost_workers (lost-workers fig)
                                           :uncaught_exceptions (:uncaught fig)
                                           :calls_on_virtual_threads (:on-virtual-threads fig)
                                           :wall_vs_virtual_threads (/ (double (:ms fig)) vs-ms)
                                           :platform_threads_vs_virtual_threads (/ (double (:peak-platform-threads fig)) vs-threads)
                                           :all_runs_ms (:all-ms fig)
                                           :scheduler (:scheduler fig)}
                                    same-jvm? (assoc :virtual_threads_same_jvm_ms (:all-ref-ms fig)
                                                     :virtual_threads_same_jvm_threads (:all-ref-threads fig))
                                    pub (assoc :article_ms_n100_remote (:ms pub)
                                               :article_threads_n100_remote (:threads pub)))})))
    (doseq [vname (concat main-goal-variants (map first weft-variants))
            :let [fig (figures vname)]
            :when fig]
      ;; each round pairs with the reference of its own JVM and round: this JVM's runs with its
      ;; virtual-threads of the same round, a +weft variant's with the one among them (decision 0858)
      (lab/goal! ctx {:name (format "N=%,d: %s within 1.10x the wall time of virtual-threads (per round)" n vname)
                      :numerators (:all-ms fig) :denominators (or (:all-ref-ms fig) (:all-ms reference))
                      :direction :at-most :target wall-target})
      (lab/goal! ctx {:name (format "N=%,d: %s within 1.2x the peak platform threads of virtual-threads (per round)" n vname)
                      :numerators (:all-threads fig) :denominators (or (:all-ref-threads fig) (:all-threads reference))
                      :direction :at-most :target 1.2}))
    (let [pb (figures "core-async-pipeline-blocking")
          wp (figures "weft-pipeline")]
      (lab/note! ctx (format "N=%,d: core.async pipeline-blocking with n = %,d: %,d workers lost (%s), %,d requests in flight at most, %,.0f ms, %d errors; weft pipeline with n = %,d: %,d in flight at most, %,.0f ms, %d errors"
                             n n (long (lost-workers pb))
                             (if (seq (:uncaught pb)) (first (keys (:uncaught pb))) "no uncaught exception")
                             (long (:max-in-flight pb)) (double (:ms pb)) (long (:errors pb))
                             n (long (:max-in-flight wp)) (double (:ms wp)) (long (:errors wp)))))
    (lab/note! ctx (format "N=%,d: peak platform threads / requests in flight at once on the server: %s" n
                           (str/join ", " (for [[vname _] (concat variants weft-variants)
                                                :let [fig (figures vname)]
                                                :when fig]
                                            (format "%s %,d / %,d" vname (long (:peak-platform-threads fig))
                                                    (long (:max-in-flight fig)))))))))

(defn- report-headline!
  "Article 000's headline with weft as core.async's executor factory: `fig` is the run of
  `core-async-go` with N go blocks each waiting `wait-ms`."
  [ctx wait-ms fig]
  (let [n (long (:n fig))]
    (lab/goal! ctx {:name (format "%d go blocks each blocking %d ms (+weft) finish within 1.10x of %d ms" n wait-ms wait-ms)
                    :measured (/ (double (:ms fig)) wait-ms) :direction :at-most :target 1.10})
    (lab/goal! ctx {:name (format "%d go blocks (+weft): at most 40 platform threads in the JVM" n)
                    :unit "threads" :measured (double (:peak-platform-threads fig)) :direction :at-most :target 40})
    (lab/goal! ctx {:name (format "%d go blocks (+weft): every blocking call on a virtual thread" n)
                    :unit "calls" :measured (double (:on-virtual-threads fig)) :direction :at-least :target (double n)})
    (lab/note! ctx (format (str "article 000's headline with weft as core.async's executor factory: %d go blocks each making"
                                " a blocking call that waits %d ms took %,.0f ms, %d of %d calls on virtual threads, peak %d"
                                " platform threads in the JVM (the article saw ~25 on 1.9.829-alpha2's virtual threads;"
                                " core.async's default runs one platform thread per blocked go block)")
                           n wait-ms (double (:ms fig)) (long (:on-virtual-threads fig)) n
                           (long (:peak-platform-threads fig))))))

(defn- round-plan
  "The rounds of one size (a RoundPlan, decision 0858): smoke 1; quick at least 3 and, while a
  wall-time goal is inconclusive, up to 6, each only if it ends within the budget less the time
  the headline and the reports take, core.async's own variants in the first round only (they
  decide no goal); full 5 of every variant."
  ^RoundPlan [^ScenarioContext ctx wait-ms]
  (let [main-runs (inc (count main-goal-variants))]
    (RoundPlan. (lab/size ctx 1 3 5) (lab/size ctx 1 6 5)
                (when (= :quick (lab/mode ctx)) (.deadline ctx))
                ;; after the rounds: the +weft JVM's headline (one wait), its result and exit, the reports
                (Duration/ofMillis (+ wait-ms 1500))
                main-runs (- (count variants) main-runs) (lab/size ctx 1 1 5))))

(defn run
  "Runs the scenario; see the namespace docstring."
  [^ScenarioContext ctx]
  (let [mode (lab/mode ctx)
        wait-ms (if (= mode :smoke) 200 1000)
        sizes (case mode :smoke [20] :quick [1000] :full [100 10000])
        port (start-server! ctx (lab/size ctx 120 300 1800))
        ;; started now, so that its start and warm-up overlap this JVM's warm-up (never its rounds)
        ;; warmed up as this JVM is (its warm-up overlaps this one's, so it costs no budget)
        weft-jvm (start-weft-jvm! ctx port sizes wait-ms
                                  (case mode :smoke 0 :quick (quot (peek sizes) 2) :full (min (peek sizes) 2000)))
        stats-client (KeptAliveGets. port)]
    (lab/limit-note! ctx (str "every call waits " wait-ms " ms on the server, so " wait-ms " ms is the floor at any N"
                              " (Little's law: N calls in flight at once); at N = 10,000 this 2-core machine runs"
                              " client and server on the same cores, so the floor there is the virtual-threads"
                              " reference of the same run"))
    (lab/note! ctx (str "published, not drawn: the article measured N = 100 against a remote server (go blocks on"
                        " core.async 1.9.829-alpha2: 3,653 ms on virtual threads with ~25 threads, 4,712 ms on platform"
                        " threads with ~107). This run calls a server on 127.0.0.1 that waits a fixed time, at other"
                        " sizes, so those figures are not comparable with any variant here and no published marker is"
                        " drawn; core.async here is 1.9.865, where go runs on platform threads again"))
    (try
      ;; The first fan-out of a JVM pair pays for growing both sides' connection and thread
      ;; structures, and every variant's own code (weft's included) must be compiled before it
      ;; is measured: each variant runs once, against short waits, before the measured rounds.
      ;; Half the measured N in quick mode: 500 calls take every per-call path past the JIT's
      ;; first compilation (200 calls) at half the CPU of 1,000 on 2 cores.
      (when-not (= mode :smoke)
        (let [warm-n (if (= mode :quick) (quot (peek sizes) 2) (min (peek sizes) 2000))]
          (with-client port stats-client
            (fn [client]
              (doseq [[vname f] variants]
                (let [fig (measure f warm-n 10 client stats-client)]
                  (lab/progress! ctx (format "warm-up: %-28s N=%,d against 10 ms waits, %.0f ms" vname warm-n
                                             (double (:ms fig))))))))))
      (await-weft-jvm-ready! weft-jvm)
      (let [;; the +weft JVM measures its part of round i right after this JVM's (never at the same
            ;; time); each JVM's runs pair with the reference of its own (decision 0858)
            figures (into {} (map (fn [n] [n (medians (run-size ctx (round-plan ctx wait-ms) weft-jvm n wait-ms
                                                                port stats-client))]))
                          sizes)
            weft-run (run-weft-jvm! ctx weft-jvm)]
        (doseq [n sizes]
          (report-size! ctx n wait-ms (merge (figures n) (medians (get-in weft-run [:sizes n])))
                        (if (and (= mode :full) (= n 10000)) "@10000" "")))
        (report-headline! ctx wait-ms (:headline weft-run))
        (lab/note! ctx (format (str "core.async %s; its default runs go dispatch, thread and pipeline-blocking on cached"
                                    " platform pools (async-mixed-<n>) and only io-thread on virtual threads. The +weft"
                                    " variants ran the same code in a JVM started with -D%s=weft.async/executor-factory"
                                    " (:mixed there: %s)")
                               (:core-async weft-run) factory-property (:executor weft-run))))
      (when (= mode :full)
        (let [n (peek sizes)
              fig (with-client port stats-client
                    #(measure core-async-go-shared-channel n wait-ms % stats-client))]
          (lab/progress! ctx (format "N=%,d, the article's collection: %,d of %,d results" n (long (:completed fig)) n))
          (lab/note! ctx (format (str "N=%,d with the article's own collection (every go block puts its result on one"
                                      " (chan 1)): %,d of %,d results arrived; %,d go blocks died on core.async's limit of"
                                      " 1,024 pending puts, so the loop gave up %,d ms after the last value (%,.0f ms in all)."
                                      " The core-async-go variant therefore takes each result from the channel its go block returns")
                                 n (long (:completed fig)) n (long (lost-to fig "puts")) give-up-ms (double (:ms fig))))))
      (finally
        (.close stats-client)))))
