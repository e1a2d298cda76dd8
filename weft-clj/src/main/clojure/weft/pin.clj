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
  marker event it commits itself (see dev.weft.pin.PinCapture).

  Production:
  - `monitor`: a dev.weft.pin.PinMonitor (JFR stream, pins aggregated by site, callback,
    periodic summary to a System.Logger, scheduler health); `report`, `report-text`, `stop!`.
  - `probe!`: pins a virtual thread on purpose, to see that monitoring works.

  Reports are maps with kebab-case keys: `:from :to :threshold-ms :pins :pinned-ms :sites
  :other-pins :submit-failures :submit-failure-messages :scheduler`; each site is
  `{:reason :blocking-operation :count :total-ms :max-ms :first-seen :last-seen :frames}`
  with frames `{:class :method :line}`, innermost first."
  (:require [clojure.string :as str]
            [clojure.test :as t]
            [weft.core :as w])
  (:import (dev.weft.pin PinCapture PinEvent PinMonitor PinMonitor$Builder PinProbe PinReport)
           (java.lang System$Logger)
           (java.time Duration)
           (java.util List Map)
           (java.util.function Consumer)))

(set! *warn-on-reflection* true)

(defn- ->clj
  "Java data from weft-core (maps with snake_case keys, lists) as Clojure data with kebab-case
  keyword keys and vectors."
  [x]
  (cond
    (instance? Map x) (persistent!
                       (reduce (fn [m [k v]] (assoc! m (keyword (str/replace (str k) "_" "-")) (->clj v)))
                               (transient {})
                               x))
    (instance? List x) (mapv ->clj x)
    :else x))

(defn- duration
  "A java.time.Duration from a Duration or a number of milliseconds."
  ^Duration [what x]
  (cond
    (instance? Duration x) x
    (number? x) (Duration/ofNanos (long (* 1e6 (double x))))
    :else (throw (IllegalArgumentException.
                  (str what " must be a number of milliseconds or a java.time.Duration; got " (pr-str x))))))

(declare report)

(defn- as-report ^PinReport [x]
  (cond
    (instance? PinReport x) x
    (instance? PinMonitor x) (.report ^PinMonitor x)
    :else (throw (IllegalArgumentException.
                  (str "expected a PinMonitor or a PinReport; got " (pr-str x))))))

;; ---- tests ----------------------------------------------------------------------------

(defn capture-call
  "Calls `f` (no arguments) and returns the dev.weft.pin.PinReport of the pins that happened
  while it ran, on any thread (every pin, however short). If `f` throws, the capture is ended
  and the exception rethrown. Options:
  - `:thread` `:virtual` (default) runs `f` on a new virtual thread with the caller's bindings
    (see `weft.core/vfuture-call`) and waits for it; `:caller` runs it on the calling thread,
    where only the virtual threads it starts can pin.
  See `pins-of`."
  (^PinReport [f] (capture-call f {}))
  (^PinReport [f {:keys [thread] :or {thread :virtual}}]
   (let [run (case thread
               :virtual #(deref (w/vfuture-call f))
               :caller f
               (throw (IllegalArgumentException.
                       (str ":thread must be :virtual or :caller; got " (pr-str thread)))))
         capture (PinCapture/start)]
     (try
       (run)
       (catch Throwable e
         (try (.end capture) (catch Throwable ended (.addSuppressed e ended)))
         (throw e)))
     (.end capture))))

(defmacro pins-of
  "Runs `body` and returns the pins that happened meanwhile as a report map (see the namespace
  docstring), e.g. `(:pins (pins-of (require 'my.ns :reload)))`. Pins on every thread count, so
  tests that run concurrently in one JVM can see each other's."
  [& body]
  `(report (capture-call (^{:once true} fn* [] ~@body))))

(defn- pinned-summary ^String [^PinReport r]
  (str "pinned " (.pins r) (if (= 1 (.pins r)) " time" " times") ":\n" (.toText r)))

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

(defn report-check!
  "Reports one pinning check to clojure.test: `expect` is `:none` (no pins allowed) or `:some`
  (pinning expected). Returns whether it passed. Used by the `is` forms of `no-pins?` and
  `pins?`."
  [msg form ^PinReport r expect]
  (let [n (.pins r)
        ok? (case expect :none (zero? n) :some (pos? n))]
    (t/do-report {:type (if ok? :pass :fail)
                  :message msg
                  :expected form
                  :actual (if (zero? n)
                            (str "no pins (" (str/trim (.toText r)) ")")
                            (pinned-summary r))})
    ok?))

(defn- assert-pins [msg form expect]
  `(report-check! ~msg '~form (capture-call (^{:once true} fn* [] ~@(rest form))) ~expect))

(doseq [sym '[no-pins? weft.pin/no-pins?]]
  (defmethod t/assert-expr sym [msg form] (assert-pins msg form :none)))
(doseq [sym '[pins? weft.pin/pins?]]
  (defmethod t/assert-expr sym [msg form] (assert-pins msg form :some)))

(defn probe!
  "Pins a new virtual thread for `ms` milliseconds (or a java.time.Duration) by blocking inside
  a class initializer, and waits for it: to see that monitoring or an assertion works. Returns
  nil."
  [ms]
  (PinProbe/pinVirtualThread (duration "probe duration" ms)))

;; ---- production -----------------------------------------------------------------------

(defn monitor
  "Starts a dev.weft.pin.PinMonitor and returns it once it records. Options:
  - `:threshold` pins shorter than this are not recorded: milliseconds or a Duration
    (default 20 ms; 0 records every pin)
  - `:top-frames` frames below the virtual-thread machinery that identify a site (default 12)
  - `:max-sites` sites kept; pins at further sites are only counted (default 1000)
  - `:on-pin` a function called with each pin as a map `{:start :duration-ms :reason
    :blocking-operation :thread :carrier :frames :truncated}`, on the monitor's thread; what it
    throws is logged and does not stop the monitor
  - `:summary-every` log a summary this often (milliseconds or a Duration; default off): at
    WARNING when pins happened in the period, DEBUG otherwise
  - `:logger` a System.Logger or a logger name (default \"dev.weft.pin\")
  - `:scheduler-interval` sample the scheduler this often (default 1000 ms; 0 turns it off)
  - `:scheduler-keep` how many samples to keep (default 600)
  Stop it with `stop!` (or `.close`). Throws IllegalStateException when this JVM has no JFR."
  (^PinMonitor [] (monitor {}))
  (^PinMonitor [{:keys [threshold top-frames max-sites on-pin summary-every logger
                        scheduler-interval scheduler-keep]
                 :or {scheduler-interval 1000 scheduler-keep 600}}]
   (let [^PinMonitor$Builder b (PinMonitor/builder)]
     (when (some? threshold) (.threshold b (duration ":threshold" threshold)))
     (when top-frames (.topFrames b (int top-frames)))
     (when max-sites (.maxSites b (int max-sites)))
     (when on-pin
       (.onPin b (reify Consumer
                   (accept [_ pin] (on-pin (->clj (.toMap ^PinEvent pin)))))))
     (when summary-every (.summaryEvery b (duration ":summary-every" summary-every)))
     (when logger
       (.logger b (if (instance? System$Logger logger) logger (System/getLogger (str logger)))))
     (.sampleScheduler b (duration ":scheduler-interval" scheduler-interval) (int scheduler-keep))
     (.start b))))

(defn report
  "A report as a map (see the namespace docstring): of a PinMonitor, what it saw since it
  started, waiting until JFR has delivered everything before the call (JFR delivers once a
  second); or of a dev.weft.pin.PinReport (e.g. from `capture-call`)."
  [monitor-or-report]
  (->clj (.toMap (as-report monitor-or-report))))

(defn report-text
  "The report of a PinMonitor (taken now) or of a PinReport, as text for people: sites with
  counts, durations, reasons and stacks, then the scheduler's health."
  ^String [monitor-or-report]
  (.toText (as-report monitor-or-report)))

(defn stop!
  "Stops `monitor` (recording and sampling) and returns its final report as a map. Calling it
  again returns the same report."
  [^PinMonitor monitor]
  (->clj (.toMap (.stop monitor))))
