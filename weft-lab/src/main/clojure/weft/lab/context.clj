(ns weft.lab.context
  "Lab scenario `context` (article 002): context for N virtual-thread tasks.

  The article's three variants, each through a structured `pmap` (weft's, on final JDK
  APIs: the article's own StructuredTaskScope code no longer compiles on JDK 25), plus
  weft's context key:
    dynamic-var            `binding` + `bound-fn*`, run as code loaded by clojure.main runs
                           (`clojure.main/with-bindings` plus the compiler's `load`: 32
                           bindings on Clojure 1.12): `bound-fn*` captures and
                           re-installs every one of them in every task
    dynamic-var-1-binding  the same with one binding in effect
    scoped-value           a java.lang.ScopedValue re-bound in every task (JDK 25+)
    explicit-arg           the context closed over and passed as an argument: the floor
    weft-context           a `defcontext` key bound with `with-context`, read with `@`
    weft-context-mdc       the same, plus a request id mirrored into the SLF4J MDC of every
                           task by weft-slf4j, with Logback's MDC (this JVM binds Logback,
                           decision 0842)
  All but dynamic-var-1-binding run in that same loaded-code environment. Every run starts
  its tasks from a virtual thread of its own, as a request handler on weft-ring does (decision
  0879). Every variant is
  warmed up by time, alone and then all of them interleaved as the rounds run them (decision
  0882), then rounds run. A round interleaves the variants run by run: cycles in
  which every variant runs once, in a new random order each cycle, until the round has lasted
  at least 1 s (quick); a variant's figure in a round is the mean time of its runs in it (as a
  JMH iteration's), with the collector's pauses charged by allocation rather than to the run
  they fell in (`round-figures`), and the variant reports its median round, comparable with the article's
  means (the fastest round and every round are kept as extras). Interleaving run by run, not
  batch by batch, is what makes the rounds' paired ratios agree: whatever slows the machine or
  the JVM for a while (a collection, a neighbour, the heap being resized) slows every variant
  of the round alike. The JVM's heap is fixed at its start (-Xms, the descriptor's jvm_args)
  so that the collector does not resize it between rounds. The goals compare variants by the
  median of their per-round ratios, decided on its confidence interval: rounds run until
  every goal is decided or the budget is spent (ScenarioContext/rounds)."
  (:require [clojure.main :as main]
            [clojure.string]
            [weft.context :refer [defcontext with-context]]
            [weft.lab.scenario :as lab]
            [weft.scope :as scope]
            [weft.slf4j :as slf4j])
  (:import (clojure.lang Var)
           (dev.weft.context Context)
           (org.slf4j MDC)
           (dev.weft.lab Goal Iterations MemoryMeter MemoryMeter$Mark Rounds ScenarioContext)
           (dev.weft.scheduler SchedulerSampler SchedulerSamples)
           (java.time Duration)
           (java.util.concurrent Callable ExecutionException FutureTask)))

(set! *warn-on-reflection* true)

(def context-data
  "The article's context."
  {:increase 1
   :colors {:red 1 :blue 2 :green 3}
   :a "A bunch of context stuff"
   :b "B bunch of context stuff"
   :c "C bunch of context stuff"})

(def ^:dynamic *context* nil)

(defcontext weft-context "The article's context, as a weft context key.")

(def published-ms
  "The article's means for 500,000 tasks on a 4-core 2020 MacBook Pro (criterium quick-bench)."
  {"dynamic-var" 1196.520 "scoped-value" 197.550 "explicit-arg" 189.314})

(def article-size 500000)

(defn- dynamic-var-run [n]
  (binding [*context* context-data]
    (scope/pmap (bound-fn* (fn [x] (+ x (:increase *context*)))) (repeat n 1))))

(defn- explicit-arg-run [n]
  (let [context context-data]
    (scope/pmap (fn [x] (+ x (:increase context))) (repeat n 1))))

(defn- weft-context-run [n]
  (with-context [weft-context context-data]
    (scope/pmap (fn [x] (+ x (:increase @weft-context))) (repeat n 1))))

(defcontext request-id "The request id weft-context-mdc mirrors into the MDC.")

(defn- with-mdc-mirror
  "Calls `f` with weft-slf4j mirroring `request-id` into the MDC as requestId: for this call
  only, since a mirror applies to every conveyance in the JVM."
  [f]
  (with-open [_ (slf4j/mirror! {request-id "requestId"})]
    (f)))

(defn- weft-context-mdc-run [n]
  (with-mdc-mirror
    #(with-context [weft-context context-data request-id "r-42"]
       (scope/pmap (fn [x] (+ x (:increase @weft-context))) (repeat n 1)))))

(defn- check-mdc-mirror!
  "Throws unless a task of the weft-context-mdc variant sees the request id in its MDC."
  []
  (let [seen (with-mdc-mirror
               #(with-context [request-id "r-42"]
                  (first (scope/pmap (fn [_] (MDC/get "requestId")) [1]))))]
    (when-not (= "r-42" seen)
      (throw (IllegalStateException. (str "weft-context-mdc: a task's MDC requestId is " (pr-str seen)
                                          ", not r-42; the MDC adapter " (class (MDC/getMDCAdapter))
                                          " does not keep entries"))))))

(defn- scoped-value-run []
  (when (>= (.feature (Runtime/version)) 25)
    (let [run (requiring-resolve 'weft.lab.context-scoped-value/run)]
      (fn [n] (run scope/pmap n context-data)))))

(def ^:private pending
  "The measurement `as-loaded-code` runs from inside code it loads."
  (atom nil))

(defn run-pending!
  "Runs the pending measurement (called from code `as-loaded-code` loads)."
  []
  ((first (reset-vals! pending nil))))

(defn- as-loaded-code
  "Calls `thunk` the way code loaded by clojure.main runs (a script, or a file loaded at a
  REPL): inside `clojure.main/with-bindings` and the compiler's `load`, which pushes its own
  bindings on top."
  [thunk]
  (reset! pending thunk)
  (main/with-bindings (load-string "(weft.lab.context/run-pending!)")))

(defn- binding-counts
  "How many dynamic bindings are in effect: in code loaded by clojure.main, in a form read and
  evaluated by `clojure.main/repl`, and under clojure.main/with-bindings alone."
  []
  {:loaded (as-loaded-code #(count (get-thread-bindings)))
   :repl-form (let [result (atom nil)
                    forms (atom ['(count (get-thread-bindings))])]
                ;; Forms come through :read, not a rebound *in*, so the count is the REPL's own.
                (main/repl :prompt (fn [])
                           :read (fn [_ request-exit] (if-let [f (first @forms)] (do (swap! forms rest) f) request-exit))
                           :print #(reset! result %))
                @result)
   :with-bindings (main/with-bindings (count (get-thread-bindings)))})

(defn- checked-run
  "Runs `(f n)` once, unmeasured, and checks that every task ran."
  [f n]
  (let [result (f n)]
    (when-not (and (= n (count result)) (= (* 2 n) (reduce + result)))
      (throw (IllegalStateException. (str "a run of " n " tasks returned the wrong result"))))))

(defn- in-env
  "Calls `thunk` in the variant's environment: :loaded (code loaded by clojure.main) or :plain."
  [env thunk]
  (if (= env :loaded) (as-loaded-code thunk) (thunk)))

(defn- environment-frame
  "The thread-binding frame of the variant's environment: that of code loaded by clojure.main
  (:loaded) or this thread's own (:plain). A frame is immutable; installing it on this thread
  later (`timed-run`) puts exactly those bindings in effect, without running the loader again
  for every run."
  [env]
  (in-env env #(Var/getThreadBindingFrame)))

(defn- in-frame
  "Calls `thunk` with the thread-binding `frame` installed, then puts this thread's back."
  [frame thunk]
  (let [outer (Var/getThreadBindingFrame)]
    (Var/resetThreadBindingFrame frame)
    (try (thunk)
         (finally (Var/resetThreadBindingFrame outer)))))

(defn- on-virtual-thread
  "Calls `thunk` on a new virtual thread, waits for it and returns its value (or throws what it threw).
  Every run starts its tasks from a virtual thread: from a platform thread, the forking thread and
  the scheduler's two carriers are three threads on two cores, and the operating system's time
  slices then decide how long a run of ~20 ms takes (decision 0879)."
  [thunk]
  (let [task (FutureTask. ^Callable thunk)]
    (.join (Thread/startVirtualThread task))
    (try (.get task)
         (catch ExecutionException e (throw (.getCause e))))))

(defn- timed-run
  "One run of `(f n)` in `frame`, on a virtual thread of its own (installing the frame is not
  timed): `:ms` its wall time, `:pause-ms` the collector's pauses inside it and `:bytes` what the
  JVM allocated during it (nil when the JVM cannot tell), from MemoryMeter's MXBean totals before
  and after."
  [frame f n]
  (on-virtual-thread
   (fn [] (in-frame frame #(let [^MemoryMeter$Mark m0 (MemoryMeter/now)
                         t0 (System/nanoTime)]
                     (f n)
                     (let [t1 (System/nanoTime)
                           ^MemoryMeter$Mark m1 (MemoryMeter/now)]
                       {:ms (/ (- t1 t0) 1e6)
                        :pause-ms (- (.gcPauseMs m1) (.gcPauseMs m0))
                        :bytes (when (and (>= (.allocatedBytes m0) 0) (>= (.allocatedBytes m1) 0))
                                 (- (.allocatedBytes m1) (.allocatedBytes m0)))}))))))

(defn- round!
  "One round: cycles in which every variant runs once, in a new random order each cycle, until
  at least `min-cycles` ran and the round has lasted `length` (a Duration). Each run is in its
  variant's memory window when `measured?` (a warm-up round's runs are not). Returns
  {name [timed-run's map of each run]}."
  [^ScenarioContext ctx variants n min-cycles ^Duration length measured?]
  (let [end (+ (System/nanoTime) (.toNanos length))]
    (loop [runs {} cycles 0]
      (if (and (>= cycles min-cycles) (>= (System/nanoTime) end))
        runs
        (recur (reduce (fn [runs [name frame f]]
                         (let [run (if measured?
                                     (with-open [_ (.measuring ctx name)]
                                       (timed-run frame f n))
                                     (timed-run frame f n))]
                           (update runs name (fnil conj []) run)))
                       runs (shuffle variants))
               (inc cycles))))))

(defn- mean [xs] (/ (reduce + xs) (count xs)))

(defn round-figures
  "Each variant's figure in one round of `runs` ({name [timed-run's map of each run]}): the mean
  over its runs of the run's time without the collector's pauses inside it, plus the round's
  pauses charged back by allocation, (the round's pause total / its allocated bytes) per byte the
  run allocated. A young collection comes every ~20 runs here and pauses 5-190 ms, against runs
  of ~20 ms: left where it lands, one pause decides which variant's round is slow, and paired
  ratios spread 0.8x-1.2x (decision 0875). Charged by allocation, the collector's cost stays in
  every figure, in proportion to the garbage each variant makes. When the JVM cannot tell
  allocated bytes, the figure is the mean wall time."
  [runs]
  (let [all (mapcat val runs)
        pauses (reduce + (map :pause-ms all))
        bytes (when (every? :bytes all) (reduce + (map :bytes all)))
        per-byte (when (and bytes (pos? bytes)) (/ pauses bytes))]
    (into {} (for [[name rs] runs]
               [name (mean (for [{:keys [ms pause-ms bytes]} rs]
                             (if per-byte (+ (- ms pause-ms) (* bytes per-byte)) ms)))]))))

(defn- paired-ratio
  "The median over rounds of a's run / b's run in the same round."
  [times a b]
  (lab/median (map / (times a) (times b))))

(defn run
  "Runs the scenario; see the namespace docstring."
  [ctx]
  (let [;; Quick mode: 50,000 tasks per run (one run takes ~40 ms on 2 cores); the goals are
        ;; ratios, which do not depend on N once a run is well above the scheduler's start-up
        ;; (--full runs 500,000).
        n (lab/size ctx 2000 50000 article-size)
        ;; Warm-up by time, as JMH does: every variant's path compiled, whatever the machine's speed.
        ;; Each variant alone first (its scheduler sampled), then all of them interleaved as a
        ;; round runs them: warmed alone only, the JIT went on compiling and deoptimizing through
        ;; the first measured rounds (the variants' mixed profiles, the round's own code), and
        ;; whole rounds ran up to 2x slow (decision 0882).
        warmup (Duration/ofMillis (lab/size ctx 0 500 3000))
        mixed-warmup (Duration/ofMillis (lab/size ctx 0 3000 5000))
        ;; A round lasts at least this long, its variants interleaved run by run: with one batch of
        ;; 300 ms per variant and round, each after a System/gc that let G1 shrink the heap (one
        ;; young collection per run), the paired ratios spread 0.6x-1.7x over 13-14 rounds on an
        ;; idle machine, and whole rounds ran slower together (issue 26, decision 0808). Quick
        ;; rounds of 1 s (3-5 cycles), not 2 s: twice the rounds in the same time, and at 12 the
        ;; sign test's interval leaves out the 2 highest and lowest, where at 7 it was the whole
        ;; range (decision 0882).
        round-length (Duration/ofMillis (lab/size ctx 0 1000 5000))
        min-cycles (lab/size ctx 1 3 8)
        ;; At least this many paired rounds; more while a goal is inconclusive and the budget allows.
        [min-rounds max-rounds] (lab/size ctx [1 1] [12 30] [12 40])
        counts (binding-counts)
        repl-count (:loaded counts)
        one-count (binding [*context* context-data] (count (get-thread-bindings)))
        sv (scoped-value-run)
        ;; [name environment run-fn]: every variant but dynamic-var-1-binding runs as loaded code.
        variants (cond-> [["dynamic-var" :loaded dynamic-var-run]
                          ["dynamic-var-1-binding" :plain dynamic-var-run]
                          ["explicit-arg" :loaded explicit-arg-run]
                          ["weft-context" :loaded weft-context-run]
                          ["weft-context-mdc" :loaded weft-context-mdc-run]]
                   sv (conj ["scoped-value" :loaded sv]))
        frames {:loaded (environment-frame :loaded) :plain (environment-frame :plain)}
        ;; [name frame run-fn], what a round runs
        runnable (mapv (fn [[name env f]] [name (frames env) f]) variants)
        samplers (atom {})
        times (atom {})
        wall-times (atom {}) ; per round, the mean wall time of the runs, pauses where they fell
        task-bytes (atom {})]
    (when-not (= repl-count (in-frame (frames :loaded) #(count (get-thread-bindings))))
      (throw (IllegalStateException. "the loaded-code frame does not hold the bindings code loaded by clojure.main sees")))
    (lab/limit-note! ctx (str "the floor is the explicit argument in this run: no context mechanism beats passing"
                              " the value, so every variant's floor is explicit-arg's median time here and its ratio"
                              " is its slowdown against an argument (x the floor, lower is better)"))
    (lab/progress! ctx n " tasks per run, " (.toMillis warmup) " ms of warm-up per variant, " (.toMillis mixed-warmup)
                   " ms of them interleaved, then " min-rounds "-"
                   max-rounds " rounds of at least " (.toMillis round-length) " ms, the variants interleaved run by"
                   " run (the median round is reported); context kept in " (Context/implementation))
    (check-mdc-mirror!)
    ;; The scheduler is sampled while each variant warms up: the same runs as the measured ones,
    ;; and a sampler running through a round would see every variant at once.
    (doseq [[name frame f] runnable]
      (on-virtual-thread #(in-frame frame (fn [] (checked-run f n))))
      (let [sampler (SchedulerSampler/start (Duration/ofMillis 50))]
        (try (on-virtual-thread #(in-frame frame (fn [] (Iterations/warmUp warmup (fn [] (f n))))))
             (finally (swap! samplers assoc name (.stop sampler))))))
    ;; The variants interleaved, unmeasured.
    (when (pos? (.toMillis mixed-warmup))
      (round! ctx runnable n 1 mixed-warmup false))
    (let [figures (fn [name] (or (@times name) []))
          ratios (fn [a b] (reify java.util.function.Supplier
                             (get [_] (vec (map / (figures a) (figures b))))))
          ^Rounds rounds (-> (.rounds ^ScenarioContext ctx min-rounds max-rounds)
                             (.reserve (Duration/ofSeconds 2))
                             (.watch Goal/AT_MOST 1.10 ^java.util.function.Supplier (ratios "weft-context" "explicit-arg"))
                             (.watch Goal/AT_LEAST 5.0 ^java.util.function.Supplier (ratios "dynamic-var" "weft-context"))
                             (.watch Goal/AT_MOST 1.10 ^java.util.function.Supplier (ratios "weft-context-mdc" "weft-context")))]
      (while (.another rounds)
        ;; one collection per round, outside every run: each round starts from the same heap
        (System/gc)
        (let [runs (round! ctx runnable n min-cycles round-length true)
              figures (round-figures runs)]
          (doseq [[name _ _] runnable]
            (swap! times update name (fnil conj []) (figures name))
            (swap! wall-times update name (fnil conj []) (mean (map :ms (runs name))))
            (when-let [bytes (seq (keep :bytes (runs name)))]
              (swap! task-bytes update name (fnil conj []) (/ (double (mean bytes)) n))))
          (lab/progress! ctx "round " (.count rounds) ", " (count (runs "explicit-arg")) " runs each, "
                         (format "%.0f ms of collector pauses inside them" (double (reduce + (map :pause-ms (mapcat val runs)))))
                         ": " (clojure.string/join ", " (for [[name _ _] runnable]
                                                          (format "%s %.1f ms (wall %.1f)" name (double (figures name))
                                                                  (double (mean (map :ms (runs name)))))))))))
    ;; The median run is the figure, as everywhere in the lab: the article published criterium
    ;; means, and a fastest-of-N beside a mean flatters the comparison. The interleaving gives
    ;; every variant the same share of a noisy machine. The fastest run is kept as an extra.
    (let [ms (into {} (map (fn [[k v]] [k (lab/median v)])) @times)
          floor (ms "explicit-arg")
          per-task-us (fn [name] (/ (* 1000.0 (- (ms name) floor)) n))]
      (doseq [[name _ _] variants]
        (lab/variant! ctx {:name name
                           :unit "ms"
                           :value (ms name)
                           :limit floor
                           :limit-label "explicit-arg in this run"
                           :rounds (@times name)
                           :published (when (= n article-size) (published-ms name))
                           :extra (cond-> {:tasks n
                                           :runs-ms (@times name)
                                           :wall-runs-ms (@wall-times name)
                                           :alloc-bytes-per-task (some-> (seq (@task-bytes name)) lab/median)
                                           :fastest-ms (apply min (@times name))
                                           :per-task-us (/ (* 1000.0 (ms name)) n)
                                           :overhead-vs-explicit-arg-us (per-task-us name)
                                           :vs-explicit-arg (/ (ms name) floor)
                                           :bindings-in-effect (if (= name "dynamic-var-1-binding") one-count repl-count)
                                           :scheduler (.toMap ^SchedulerSamples (@samplers name))}
                                    (published-ms name) (assoc :published-ms-500k-tasks-4-cores (published-ms name)))}))
      (let [weft-vs-arg (paired-ratio @times "weft-context" "explicit-arg")
            dyn-vs-weft (paired-ratio @times "dynamic-var" "weft-context")]
        (lab/note! ctx (format (str "dynamic-var runs as code loaded by clojure.main runs (a script, or a file loaded"
                                    " at a REPL: clojure.main/with-bindings plus the compiler's load): %d dynamic bindings"
                                    " in effect, every one captured and re-installed by bound-fn* in each task, %.2f us per"
                                    " task over explicit-arg; with %d binding, %.2f us. A form evaluated by clojure.main's REPL"
                                    " sees %d bindings, clojure.main/with-bindings alone %d")
                               repl-count (per-task-us "dynamic-var") one-count (per-task-us "dynamic-var-1-binding")
                               (:repl-form counts) (:with-bindings counts)))
        (lab/goal! ctx {:name "weft-context within 1.10x of explicit-arg (its time / explicit-arg's, per round)"
                        :numerators (@times "weft-context") :denominators (@times "explicit-arg")
                        :direction :at-most :target 1.10})
        (lab/goal! ctx {:name "weft-context at least 5x faster than dynamic-var (dynamic-var's time / its, per round)"
                        :numerators (@times "dynamic-var") :denominators (@times "weft-context")
                        :direction :at-least :target 5.0})
        (lab/note! ctx (format (str "weft-context: %.3fx explicit-arg by the median of %d per-round ratios (ratio of the"
                                    " medians: %.3fx); %.3f us per task over explicit-arg; dynamic-var / weft-context %.2fx")
                               weft-vs-arg (count (@times "explicit-arg")) (/ (ms "weft-context") floor)
                               (per-task-us "weft-context") dyn-vs-weft))
        (lab/goal! ctx {:name "weft-context-mdc within 1.10x of weft-context (its time / weft-context's, per round)"
                        :numerators (@times "weft-context-mdc") :denominators (@times "weft-context")
                        :direction :at-most :target 1.10})
        (lab/note! ctx (format (str "weft-context-mdc: %.3fx weft-context by the median of %d per-round ratios;"
                                    " %.1f ns per task for mirroring a request id into the MDC (%s)")
                               (paired-ratio @times "weft-context-mdc" "weft-context") (count (@times "explicit-arg"))
                               (* 1000.0 (- (per-task-us "weft-context-mdc") (per-task-us "weft-context")))
                               (.getName (class (MDC/getMDCAdapter)))))
        (if sv
          (lab/note! ctx (format (str "scoped-value re-binds a java.lang.ScopedValue in every task (what the article's"
                                      " StructuredTaskScope inheritance does): %.3fx explicit-arg (median of"
                                      " per-round ratios)")
                                 (paired-ratio @times "scoped-value" "explicit-arg")))
          (lab/note! ctx (str "scoped-value skipped: java.lang.ScopedValue is a preview API before JDK 25 (this is "
                              (Runtime/version) ")")))
        (lab/note! ctx (str "published: 500,000 tasks on a 4-core laptop, 1,197 / 198 / 189 ms"
                            " (dynamic var / scoped value / explicit argument)"
                            (when-not (= n article-size)
                              (str "; this run has " n " tasks, so compare ratios; --full runs 500,000"))))))))
