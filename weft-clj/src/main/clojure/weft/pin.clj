(ns weft.pin
  "Pinned virtual threads, from Clojure: a monitor for production and assertions for tests.

  A virtual thread is pinned when it blocks but cannot unmount from its carrier, so the
  carrier blocks with it. On JDK 24+ that still happens when it blocks inside a class
  initializer (for Clojure: loading an AOT-compiled namespace whose top level blocks, as its
  `__init` class runs the top level in `<clinit>`), while waiting for
  another thread's class initialization, or under a native frame; on JDK 21-23 also inside
  `locking`/`synchronized`.

  Tests (each runs its body on a new virtual thread, with the caller's bindings, and waits:
  code that blocks on a platform thread cannot pin, so this is where \"would it pin?\" has an
  answer):
  - `pins-of`: runs a body and returns the pins it caused, as data.
  - `(is (no-pins? body...))` fails, with every pinned stack in the message, when the body
    pinned; `(is (pins? body...))` expects pinning. Refer them unqualified
    (`(:require [weft.pin :refer [no-pins? pins?]])`): clojure.test matches `is` forms by
    the symbol as written, like `thrown?`.
  Each check is exact, not timing luck: it is a JFR recording of its own that ends with a
  marker event it commits itself (see dev.weft.pin.PinCapture). The checks are
  dev.weft.pin.PinCheck, the same implementation as weft-junit's `@NoPins`, `@ExpectPins`
  and `PinAssertions`; if the calling thread is interrupted while a body runs, the body's
  thread is interrupted too and waited for.

  Production:
  - `monitor`: a dev.weft.pin.PinMonitor (JFR stream, pins aggregated by site, callback,
    periodic summary to a System.Logger, scheduler health); `report`, `report-text`, `stop!`.
  - `probe!`: pins a virtual thread on purpose, to see that monitoring works.

  Reports are maps with kebab-case keys: `:from :to :threshold-ms :pins :pinned-ms :sites
  :other-pins :submit-failures :submit-failure-messages :scheduler :not-counted`; each site is
  `{:reason :blocking-operation :count :total-ms :max-ms :first-seen :last-seen :frames}`
  with frames `{:class :method :line}`, innermost first. `:not-counted` lists the pins a check
  saw but did not count because they were the JDK's own (a pin on a thread of the JDK's
  machinery, caused by the one-time initialization of a JDK class the body only triggered,
  such as JDK 25's socket pollers starting, or a wait for a monitor inside a section the JVM
  pinned for itself, such as class loading): `{:thread :why :reason :duration-ms :frames}`."
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [clojure.string :as str]
            [clojure.test :as t]
            [weft.impl :as impl]
            [weft.impl.options :as options])
  (:import (clojure.lang ExceptionInfo)
           (dev.weft.pin PinCheck PinCheck$Body PinCheck$BodyThread PinEvent PinMonitor PinMonitor$Builder PinProbe PinReport)
           (java.lang System$Logger)
           (java.time Duration)
           (java.util.function Consumer Function)))

(set! *warn-on-reflection* true)

(defn- body
  "`f` as a PinCheck body; for another thread, one that runs with the caller's dynamic
  bindings (PinCheck conveys the context keys itself). On the calling thread they are in
  effect already, and re-binding there would replace its binding frame for good."
  ^PinCheck$Body [f on-virtual-thread?]
  (let [f (if on-virtual-thread? ((impl/binding-conveyor) f) f)]
    (reify PinCheck$Body (run [_] (f)))))

(declare report)

(defn- as-report ^PinReport [x]
  (cond
    (instance? PinReport x) x
    (instance? PinMonitor x) (.report ^PinMonitor x)
    :else (throw (IllegalArgumentException.
                  (str "expected a PinMonitor or a PinReport; got " (pr-str x))))))

;; ---- tests ----------------------------------------------------------------------------

(def ^:private capture-options
  (options/spec "weft.pin/capture-call"
                [(merge (options/one-of {:virtual true :caller false})
                        {:key :thread :default :virtual
                         :doc ":virtual runs `f` on a new virtual thread (`weft-pin-check-<n>`) with the
                               caller's context keys and dynamic bindings, and waits for it; if the
                               caller is interrupted meanwhile, that thread is interrupted and waited
                               for, and InterruptedException thrown. :caller runs `f` on the calling
                               thread, where only the virtual threads it starts can pin"})]
                {:example "{:thread :caller}"}))

(defn capture-call
  "Calls `f` (no arguments) and returns the dev.weft.pin.PinReport of the pins that happened
  while it ran, on any thread (every pin, however short). If `f` throws, the capture is ended
  and the exception rethrown. See `pins-of`."
  (^PinReport [f] (capture-call f {}))
  (^PinReport [f opts]
   (let [virtual? (boolean (:thread (options/check capture-options opts)))]
     (PinCheck/capture (body f virtual?) (if virtual? PinCheck$BodyThread/VIRTUAL PinCheck$BodyThread/CALLER)))))

(defmacro pins-of
  "Runs `body` and returns the pins that happened meanwhile as a report map (see the namespace
  docstring), e.g. `(:pins (pins-of (require 'my.ns :reload)))`. Pins on every thread count, so
  tests that run concurrently in one JVM can see each other's."
  [& body]
  `(report (capture-call (^{:once true} fn* [] ~@body))))

(defmacro no-pins?
  "True when `body` pinned no virtual thread. Inside `clojure.test/is`, a failure shows every
  pinned stack; refer it unqualified for that (see the namespace docstring)."
  [& body]
  `(zero? (.pins (capture-call (^{:once true} fn* [] ~@body)))))

(defmacro pins?
  "True when `body` pinned a virtual thread at least once: the form for tests that expect
  pinning. Inside `clojure.test/is`, a success keeps quiet and a failure says nothing pinned."
  [& body]
  `(pos? (.pins (capture-call (^{:once true} fn* [] ~@body)))))

(def ^:private ^Function violation
  "Makes the exception PinCheck throws for a broken rule, told apart from the body's own."
  (reify Function
    (apply [_ message] (ex-info message {::violation true}))))

(defn report-check!
  "Runs `f` (no arguments) as a pin check, on a new virtual thread, and reports it to
  clojure.test: `expect` is `:none` (no pins allowed) or `:some` (pinning expected). A broken
  rule is a failure whose message has every pinned stack; what `f` throws goes on (an error
  in `is`), with a broken rule attached as suppressed. Returns whether the rule held. Used
  by the `is` forms of `no-pins?` and `pins?`."
  [msg form f expect]
  (try
    (let [r (PinCheck/verify (body f true) (case expect :none 0 :some 1) "the body" PinCheck$BodyThread/VIRTUAL violation)]
      (t/do-report {:type :pass :message msg :expected form :actual (str/trim (.toText r))})
      true)
    (catch ExceptionInfo e
      (if (::violation (ex-data e))
        ;; The report goes in :message, which clojure.test prints as it is, line by line
        ;; (:actual is printed with pr-str, which would escape every newline).
        (do (t/do-report {:type :fail :message (str (when msg (str msg "\n")) (ex-message e))
                          :expected form :actual (list 'not form)})
            false)
        (throw e)))))

(defn- assert-pins [msg form expect]
  `(report-check! ~msg '~form (^{:once true} fn* [] ~@(rest form)) ~expect))

(doseq [sym '[no-pins? weft.pin/no-pins?]]
  (defmethod t/assert-expr sym [msg form] (assert-pins msg form :none)))
(doseq [sym '[pins? weft.pin/pins?]]
  (defmethod t/assert-expr sym [msg form] (assert-pins msg form :some)))

(defn probe!
  "Pins a new virtual thread for `ms` milliseconds (or a java.time.Duration) by blocking inside
  a class initializer, and waits for it: to see that monitoring or an assertion works. Returns
  nil."
  [ms]
  (PinProbe/pinVirtualThread (impl/duration "probe duration" ms)))

;; ---- production -----------------------------------------------------------------------

(def ^:private monitor-options
  (options/spec "weft.pin/monitor"
                [{:key :threshold :type :duration :default-doc "20 ms"
                  :doc "pins shorter than this are not recorded; 0 records every pin"}
                 {:key :top-frames :type :pos-int :default-doc "12"
                  :doc "frames below the virtual-thread machinery that identify a site"}
                 {:key :max-sites :type :pos-int :default-doc "1000"
                  :doc "sites kept; pins at further sites are only counted"}
                 {:key :on-pin :type :fn :default-doc "none"
                  :doc "a function called with each pin as a map `{:start :duration-ms :reason
                        :blocking-operation :thread :carrier :frames :truncated}`, on the monitor's
                        thread; what it throws is logged and does not stop the monitor"}
                 {:key :summary-every :type :duration :default-doc "off"
                  :valid? #(and (options/duration? %) (pos? (.toNanos (impl/duration ":summary-every" %))))
                  :must-be "a positive number of milliseconds or a positive java.time.Duration"
                  :doc "log a summary this often: at WARNING when pins happened in the period,
                        DEBUG otherwise"}
                 {:key :logger :default-doc "\"dev.weft.pin\""
                  :valid? #(or (instance? System$Logger %) (string? %) (keyword? %) (symbol? %))
                  :must-be "a java.lang.System$Logger or a logger name"
                  :doc "a System.Logger or a logger name"}
                 {:key :scheduler-interval :type :duration :default 1000
                  :doc "sample the scheduler this often; 0 turns it off"}
                 {:key :scheduler-keep :type :pos-int :default 600
                  :doc "how many scheduler samples to keep"}]
                {:example "{:threshold 50}"}))

(defn monitor
  "Starts a dev.weft.pin.PinMonitor and returns it once it records. Stop it with `stop!` (or
  `.close`). Throws IllegalStateException when this JVM has no JFR."
  (^PinMonitor [] (monitor {}))
  (^PinMonitor [opts]
   (let [{:keys [threshold top-frames max-sites on-pin summary-every logger
                 scheduler-interval scheduler-keep]} (options/check monitor-options opts)
         ^PinMonitor$Builder b (PinMonitor/builder)]
     (when threshold (.threshold b ^Duration threshold))
     (when top-frames (.topFrames b (int top-frames)))
     (when max-sites (.maxSites b (int max-sites)))
     (when on-pin
       (.onPin b (reify Consumer
                   (accept [_ pin] (on-pin (impl/java->clj (.toMap ^PinEvent pin)))))))
     (when summary-every (.summaryEvery b ^Duration summary-every))
     (when logger
       (.logger b (if (instance? System$Logger logger) logger (System/getLogger (name logger)))))
     (.sampleScheduler b ^Duration scheduler-interval (int scheduler-keep))
     (.start b))))

(defn report
  "A report as a map (see the namespace docstring): of a PinMonitor, what it saw since it
  started, waiting until JFR has delivered everything before the call (JFR delivers once a
  second); or of a dev.weft.pin.PinReport (e.g. from `capture-call`)."
  [monitor-or-report]
  (impl/java->clj (.toMap (as-report monitor-or-report))))

(defn report-text
  "The report of a PinMonitor (taken now) or of a PinReport, as text for people: sites with
  counts, durations, reasons and stacks, then the scheduler's health."
  ^String [monitor-or-report]
  (.toText (as-report monitor-or-report)))

(defn stop!
  "Stops `monitor` (recording and sampling) and returns its final report as a map. Calling it
  again returns the same report."
  [^PinMonitor monitor]
  (impl/java->clj (.toMap (.stop monitor))))

(options/document! #'capture-call capture-options)
(options/document! #'monitor monitor-options)
