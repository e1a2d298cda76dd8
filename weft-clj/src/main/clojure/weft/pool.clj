(ns weft.pool
  "A pool of reusable resources (connections, clients, buffers) made for virtual threads, over
  dev.weft.pool.Pool: a borrower that finds none free parks, first come first served, and never
  spins, yields or pins a carrier.

    (with-open [p (pool \"buffers\" #(StringBuilder.) {:max-size 20 :max-wait 2000})]
      (with-resource [sb p]
        (.append ^StringBuilder sb \"hello\")))

  `pool` takes the function that creates a resource and an option map (below): resources are
  created by the pool's own virtual threads, at most :max-creating at once; one idle longer than
  :validate-after is checked with :validate before it is handed out; :reset runs when one comes
  back; :destroy ends one. `with-resource` borrows for the length of its body; `borrow` returns a
  dev.weft.pool.Lease to close (`release!`) or `invalidate!` yourself. `stats` is the pool's state
  as data. A borrow that waited :max-wait throws dev.weft.pool.PoolTimeoutException naming the
  pool, its size and the wait; a borrow from a closed pool throws PoolClosedException.

  For JDBC, dev.weft.jdbc.WeftDataSource (weft-jdbc) is a javax.sql.DataSource over the same pool."
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [weft.impl :as impl]
            [weft.impl.options :as options])
  (:import (dev.weft.pool LeakReport Lease Pool Pool$Builder PoolStats ResourceFactory)
           (java.time Duration)
           (java.util.function Consumer)))

(set! *warn-on-reflection* true)

(def ^:private pool-options
  (options/spec "weft.pool/pool"
                [{:key :max-size :type :pos-int :default-doc "10"
                  :doc "the most resources open at once: borrowed, idle or being created"}
                 {:key :min-idle :type :nat-int :default-doc "0"
                  :doc "idle resources kept ready, created in the background (at most :max-size)"}
                 {:key :max-creating :type :pos-int :default-doc "4"
                  :doc "the most resources being created at once"}
                 {:key :max-wait :type :duration :default-doc "30 s"
                  :doc "the longest a borrow waits before PoolTimeoutException; 0: only an idle one"}
                 {:key :max-lifetime :type :duration :default-doc "30 min"
                  :doc "a resource older than this is destroyed (never while borrowed); 0: no limit"}
                 {:key :idle-timeout :type :duration :default-doc "10 min"
                  :doc "a resource idle longer than this is destroyed while more than :min-idle are idle; 0: never"}
                 {:key :validate-after :type :duration :default-doc "500 ms"
                  :doc "a resource idle longer than this is checked with :validate before it is handed out"}
                 {:key :leak-threshold :type :duration :default-doc "0 (off)"
                  :doc "a resource held longer than this is reported with the borrower's stack to :on-leak"}
                 {:key :on-leak :type :fn :default-doc "a WARNING on System.Logger dev.weft.pool.Pool"
                  :doc "called with each leak as a map {:pool :held-ms :borrower :stack}"}
                 {:key :close-timeout :type :duration :default-doc "30 s"
                  :doc "how long closing the pool waits for borrowed resources"}
                 {:key :destroy :type :fn :default-doc "closes java.lang.AutoCloseable resources"
                  :doc "(fn [resource]) ends a resource"}
                 {:key :validate :type :fn :default-doc "trusts every resource"
                  :doc "(fn [resource]) truthy when the resource still works; falsey or a throw destroys it"}
                 {:key :reset :type :fn :default-doc "nothing"
                  :doc "(fn [resource]) puts back what a borrower changed; a throw destroys the resource"}]
                {:example "{:max-size 20 :max-wait 2000}"}))

(defn- leak->map [^LeakReport r]
  {:pool (.pool r)
   :held-ms (/ (.toNanos (.held r)) 1e6)
   :borrower (.borrower r)
   :stack (mapv str (.stack r))})

(defn pool
  "Starts a pool named `pool-name` (for messages and statistics) whose resources `create` (a
  function of no arguments, called on the pool's virtual threads) makes. Close it with `close!`
  or `.close` (it is AutoCloseable, so `with-open` works)."
  (^Pool [pool-name create] (pool pool-name create {}))
  (^Pool [pool-name create opts]
   (when-not (ifn? create)
     (throw (options/error "weft.pool/pool" (str "create must be a function of no arguments that makes a resource; got "
                                                 (pr-str create))
                           {:create create})))
   (let [{:keys [max-size min-idle max-creating max-wait max-lifetime idle-timeout validate-after
                 leak-threshold on-leak close-timeout destroy validate reset]}
         (options/check pool-options opts)
         factory (reify ResourceFactory
                   (create [_] (create))
                   (validate [_ r] (if validate (boolean (validate r)) true))
                   (reset [_ r] (when reset (reset r)))
                   (destroy [_ r]
                     (cond destroy (destroy r)
                           (instance? java.lang.AutoCloseable r) (.close ^java.lang.AutoCloseable r))))
         ^Pool$Builder b (Pool/builder (if (instance? clojure.lang.Named pool-name) (name pool-name) (str pool-name)) factory)]
     (when max-size (.maxSize b (int max-size)))
     (when min-idle (.minIdle b (int min-idle)))
     (when max-creating (.maxCreating b (int max-creating)))
     (when max-wait (.maxWait b ^Duration max-wait))
     (when max-lifetime (.maxLifetime b ^Duration max-lifetime))
     (when idle-timeout (.idleTimeout b ^Duration idle-timeout))
     (when validate-after (.validateAfter b ^Duration validate-after))
     (when leak-threshold (.leakThreshold b ^Duration leak-threshold))
     (when on-leak (.onLeak b (reify Consumer (accept [_ r] (on-leak (leak->map r))))))
     (when close-timeout (.closeTimeout b ^Duration close-timeout))
     (.build b))))

(defn borrow
  "Borrows a resource from `p`, waiting at most the pool's :max-wait (or `max-wait`, ms or a
  Duration). Returns a dev.weft.pool.Lease: `(.get lease)` is the resource; `release!` gives it
  back, `invalidate!` destroys it. Throws PoolTimeoutException, PoolClosedException, or
  InterruptedException when interrupted while waiting."
  (^Lease [^Pool p] (.borrow p))
  (^Lease [^Pool p max-wait] (.borrow p (impl/duration "max-wait" max-wait))))

(defn release!
  "Returns the leased resource to its pool. Idempotent."
  [^Lease lease]
  (.close lease))

(defn invalidate!
  "Destroys the leased resource instead of returning it (it is broken); the pool creates another
  when borrowers need one. Idempotent; does nothing after `release!`."
  [^Lease lease]
  (.invalidate lease))

(defmacro with-resource
  "Borrows a resource from `pool-expr`, binds it to `sym` for the body and returns it when the
  body ends, normally or by a throw:

    (with-resource [conn db-pool] (query conn))

  A body that finds the resource broken can throw: the resource still goes back (use `borrow`
  and `invalidate!` to destroy it instead)."
  [[sym pool-expr] & body]
  `(with-open [lease# (borrow ~pool-expr)]
     (let [~sym (.get ^Lease lease#)]
       ~@body)))

(defn stats
  "The pool's state and history now, as a map: :pool :max-size :in-use :idle :creating :waiting
  :created :destroyed :borrows :timeouts :create-failures :leaks :wait-p50-ms :wait-p99-ms
  :wait-max-ms (see doc/options.md, Statistics)."
  [^Pool p]
  (impl/java->clj (.toMap ^PoolStats (.stats p))))

(defn close!
  "Closes `p`: new borrows fail, waiting borrowers fail at once, idle resources are destroyed,
  borrowed ones when they come back or after `timeout` (ms or a Duration; default the pool's
  :close-timeout). With a timeout, returns true when every borrowed resource came back in time;
  without, nil."
  ([^Pool p] (.close p))
  ([^Pool p timeout] (.close p (impl/duration "timeout" timeout))))

(options/document! #'pool pool-options)

(def ^:private admission-options
  (options/spec "weft.pool/admission-limiter"
                [{:key :target-wait :type :duration :default 50
                  :doc "the longest a caller let in should wait for a resource: the limit is the pool's :max-size plus what the pool serves in this time"}]
                {:example "{:target-wait 50}"}))

(defn admission-limiter
  "A dev.weft.limit.Limiter that admits by `p`'s pressure (dev.weft.pool.PoolLimit, decision
  0900): the pool's :max-size plus the queue it serves within `:target-wait` at the rate it is
  serving now, shedding whatever is over it at once (LimitExceededException; weft-ring answers
  503 with Retry-After). Share it between every entry point that borrows from `p`:

    (ring/run-server handler {:port 8080 :limiter (admission-limiter db {:target-wait 50})})

  For a dev.weft.jdbc.WeftDataSource, give its pool: `(.pool data-source)`. Throws
  InvalidOptionException for a negative :target-wait, IllegalArgumentException for a closed pool."
  (^dev.weft.limit.Limiter [p] (admission-limiter p {}))
  (^dev.weft.limit.Limiter [p opts]
   (when-not (instance? Pool p)
     (throw (options/error "weft.pool/admission-limiter"
                           (str "the first argument must be a dev.weft.pool.Pool (for a WeftDataSource, its (.pool ds)); got "
                                (pr-str (type p)))
                           {:pool p})))
   (dev.weft.pool.PoolLimit/limiter p (:target-wait (options/check admission-options opts)))))

(options/document! #'admission-limiter admission-options)
