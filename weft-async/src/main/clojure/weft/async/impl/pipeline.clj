(ns ^:no-doc weft.async.impl.pipeline
  "Internal to weft.async: the pipeline engine behind weft.async/pipeline (decision 0502). Not
  part of weft's API: use weft.async/pipeline.

  One dispatcher thread takes from `from` and one collector thread puts to `to`, so the
  pipeline never has more than one pending op on a user's channel, whatever n (core.async's
  channels allow 1,024 pending takes, which n workers all taking from one channel exceed). The
  dispatcher takes a permit of a Semaphore(n) before each take and starts one virtual thread
  per input (a process of the owning scope); the collector gives the permit back once that
  input's outputs are delivered (or skipped), so at most n inputs are between `from` and `to`:
  back-pressure, bounded memory. Ordered: the dispatcher queues each input's slot as it takes
  it and the collector delivers slots in that order, waiting for each. Unordered: each worker
  queues its slot when done. The dispatcher ends the queue with the number of slots, so the
  collector knows when it has seen them all, and only then closes `to` and the result channel:
  when the pipeline ends, every thread it started has ended. Stopping (a failure without
  ex-handler, `to` closed, the scope cancelled) is one atomic reason: ordered, an earlier
  failing input replaces a later one, so exactly the outputs of the inputs before the first
  failing input are delivered. A worker stops itself before it completes its slot, so the
  collector never delivers past a failure it has seen.

  The state one pipeline's threads share is a `Pipeline`; each step below is a function of it."
  (:require [clojure.core.async :as a]
            [weft.async.impl.ops :as ops]
            [weft.async.impl.registry :as registry]
            [weft.impl :as wimpl])
  (:import (dev.weft.async PipelineStopEvent)
           (dev.weft.scope Scope)
           (java.util ArrayList List)
           (java.util.concurrent CancellationException CompletableFuture ConcurrentHashMap
                                 LinkedBlockingQueue Semaphore)
           (java.util.concurrent.atomic AtomicLong AtomicReference)))

(set! *warn-on-reflection* true)

;; An input on its way: its index, the input, and its outcome once transformed (a List of
;; outputs, `skipped`, or a Failed).
(deftype Slot [^long index input ^CompletableFuture result])
;; The last item of the queue: how many slots the dispatcher queued.
(deftype End [^long total])
;; Why the pipeline stops: :failure (of input `index`), :cancelled or :to-closed.
(deftype Stop [kind ^long index error input])
(deftype Failed [error])

(def ^:private skipped ::skipped)

(deftype Pipeline
  [;; what the call gave
   ^String pname to xf from close? ex-handler ordered?
   convey                           ; conveys the caller's context keys and bindings
   result                           ; the channel pipeline returns
   ;; what its threads share
   ^Semaphore permits               ; n: inputs between their take and their delivery
   ^LinkedBlockingQueue q           ; slots to the collector, then an End
   ^ConcurrentHashMap in-flight     ; index -> the worker thread transforming it
   ^AtomicReference stop            ; the Stop, once the pipeline stops short
   ^AtomicReference dispatcher      ; the dispatcher thread while it runs
   ^AtomicReference scope-ref       ; the owning scope, once the collector runs in it
   ^AtomicLong taken                ; for the JFR event: inputs the dispatcher took
   ^AtomicLong delivered            ; and outputs the collector put on `to`
   ;; the dispatcher and the workers still running; when it reaches 0 it stays there,
   ;; because the dispatcher counts and only it starts workers
   ^AtomicLong others
   ^CompletableFuture others-ended])

(defn- pipeline-state ^Pipeline [n to xf from opts]
  (let [{:keys [close? ex-handler ordered?]} (merge {:close? true :ordered? true} opts)]
    (Pipeline. (name (:name opts "pipeline")) to xf from close? ex-handler ordered?
               (wimpl/binding-conveyor) (a/chan 1)
               (Semaphore. (int n)) (LinkedBlockingQueue.) (ConcurrentHashMap.)
               (AtomicReference.) (AtomicReference.) (AtomicReference.)
               (AtomicLong.) (AtomicLong.) (AtomicLong.) (CompletableFuture.))))

;; ---------------------------------------------------------------------------------------
;; Stopping.

(defn- deliverable? [^Stop stop ordered? ^long index]
  (or (nil? stop)
      (and ordered? (identical? :failure (.-kind stop)) (< index (.-index stop)))))

(defn- replaces?
  "True when stop reason `reason` takes the place of `old`: there was none, or, ordered, both
  are failures and `reason`'s input comes first."
  [^Pipeline p ^Stop old ^Stop reason]
  (or (nil? old)
      (and (.-ordered? p) (identical? :failure (.-kind old)) (identical? :failure (.-kind reason))
           (< (.-index reason) (.-index old)))))

(defn- interrupt-stopped!
  "Interrupts the dispatcher and the workers whose outputs `reason` makes undeliverable, but
  not the calling thread."
  [^Pipeline p ^Stop reason]
  (let [self (Thread/currentThread)]
    (when-let [^Thread d (.get ^AtomicReference (.-dispatcher p))]
      (when-not (identical? d self) (.interrupt d)))
    (doseq [[i ^Thread t] (.-in-flight p)]
      (when-not (or (identical? t self) (deliverable? reason (.-ordered? p) i))
        (.interrupt t)))))

(defn- stop!
  "Stops the pipeline for `reason`, unless it stopped already for a reason `reason` does not
  replace."
  [^Pipeline p ^Stop reason]
  (let [^AtomicReference stop (.-stop p)]
    (loop []
      (let [old (.get stop)]
        (when (replaces? p old reason)
          (if (.compareAndSet stop old reason)
            (interrupt-stopped! p reason)
            (recur)))))))

(defn- cancel! [p]
  (stop! p (Stop. :cancelled -1 nil nil)))

(defn- stopping?
  "True when `t` is how an interrupt of a stopping pipeline (or its ending scope) surfaced."
  [^Pipeline p t]
  (and (registry/interrupt-like? t)
       (or (some? (.get ^AtomicReference (.-stop p))) (.isCancelled ^Scope (.get ^AtomicReference (.-scope-ref p))))))

(defn- other-ended! [^Pipeline p]
  (when (zero? (.decrementAndGet ^AtomicLong (.-others p)))
    (.complete ^CompletableFuture (.-others-ended p) true)))

;; ---------------------------------------------------------------------------------------
;; Workers: one input each.

(defn- outputs
  "Applies transducer `xf` to `input` alone, as core.async's pipeline does (a fresh
  reducing function per input, completed after the input), and returns the outputs.
  With `ex-handler`, an exception in either step goes to it and its non-nil value is
  one more output; without, or when `cancelled?` says the exception is a cancellation,
  it is thrown."
  ^List [xf ex-handler cancelled? input]
  (let [out (ArrayList.)
        add (fn
              ([acc] acc)
              ([acc x]
               (when (nil? x)
                 (throw (IllegalArgumentException.
                         (str "the pipeline's transducer produced nil for input " (pr-str input)
                              "; a channel cannot carry nil: drop it with (keep f) or (remove nil?)"))))
               (.add out x)
               acc))
        handle (fn [^Throwable t]
                 (if (and ex-handler (not (cancelled? t)))
                   (when-some [v (ex-handler t)] (.add out v))
                   (throw t)))
        rf (try (xf add) (catch Throwable t (handle t) nil))]
    (when rf
      (let [acc (try (rf nil input) (catch Throwable t (handle t) nil))]
        (try (rf (unreduced acc)) (catch Throwable t (handle t)))))
    out))

(defn- complete-slot!
  "Completes `s` with `outcome` and, unordered, hands it to the collector (ordered, the
  dispatcher queued it already)."
  [^Pipeline p ^Slot s outcome]
  (.complete ^CompletableFuture (.-result s) outcome)
  (when-not (.-ordered? p) (.offer ^LinkedBlockingQueue (.-q p) s)))

(defn- transform
  "The outcome of slot `s`: its outputs; `skipped` when the pipeline stopped before them (or
  while, by an interrupt); a Failed, having stopped the pipeline, when it failed."
  [^Pipeline p ^Slot s]
  (let [i (.-index s)]
    (try
      (if (deliverable? (.get ^AtomicReference (.-stop p)) (.-ordered? p) i)
        (outputs (.-xf p) (.-ex-handler p) #(stopping? p %) (.-input s))
        skipped)
      (catch Throwable t
        (if (stopping? p t)
          (do (cancel! p) skipped)
          (do (stop! p (Stop. :failure i t (.-input s)))
              (Failed. t)))))))

(defn- work!
  "A worker's body: transforms slot `s`, visible to `stop!` while it does."
  [^Pipeline p ^Slot s]
  (let [i (.-index s)
        ^ConcurrentHashMap in-flight (.-in-flight p)]
    (.put in-flight i (Thread/currentThread))
    (let [outcome (transform p s)]
      (.remove in-flight i)
      (complete-slot! p s outcome))))

(defn- start-worker!
  "Starts a worker for `s` in `scope`; true when it started. When it cannot start, the
  pipeline stops (cancelled, or failed at `s`) and `s` is completed as skipped."
  [^Pipeline p ^Scope scope ^Slot s]
  (.incrementAndGet ^AtomicLong (.-others p))
  (try
    (registry/spawn! scope (.-pname p) ((.-convey p) #(work! p s)) #(other-ended! p))
    true
    (catch Throwable t
      (other-ended! p)
      (if (or (registry/interrupt-like? t) (.isCancelled scope))
        (cancel! p)
        (stop! p (Stop. :failure (.-index s) t (.-input s))))
      (complete-slot! p s skipped)
      false)))

;; ---------------------------------------------------------------------------------------
;; The dispatcher: takes from `from`, one permit per input.

(defn- acquire-permit!
  "True once a permit is taken and the pipeline still runs; false when it stopped."
  [^Pipeline p]
  (and (nil? (.get ^AtomicReference (.-stop p)))
       (try (.acquire ^Semaphore (.-permits p)) true
            (catch InterruptedException _ (cancel! p) false))))

(defn- take-input
  "The next input from `from`; nil when it is closed, ::stopped when the pipeline stopped."
  [^Pipeline p]
  (try (if (nil? (.get ^AtomicReference (.-stop p))) (ops/take!! (.-from p)) ::stopped)
       (catch InterruptedException _ (cancel! p) ::stopped)))

(defn- dispatch!
  "The dispatcher's body: takes inputs and starts their workers until `from` closes or the
  pipeline stops, then ends the queue with the number of slots it queued."
  [^Pipeline p ^Scope scope]
  (let [^AtomicReference dispatcher (.-dispatcher p)
        ^LinkedBlockingQueue q (.-q p)
        total (long-array 1)]
    (.set dispatcher (Thread/currentThread))
    (try
      (loop [i 0]
        (aset total 0 i)
        (when (acquire-permit! p)
          (let [v (take-input p)]
            (if (or (nil? v) (identical? v ::stopped) (some? (.get ^AtomicReference (.-stop p))))
              (.release ^Semaphore (.-permits p))
              (let [s (Slot. i v (CompletableFuture.))]
                (when (.-ordered? p) (.offer q s))
                (aset total 0 (inc i))
                (when (start-worker! p scope s)
                  (recur (inc i))))))))
      (catch Throwable t
        (if (.isCancelled scope)
          (cancel! p)
          (stop! p (Stop. :failure (aget total 0) t nil))))
      (finally
        (.set ^AtomicLong (.-taken p) (aget total 0))
        (.set dispatcher nil)
        (.offer q (End. (aget total 0)))))))

;; ---------------------------------------------------------------------------------------
;; The collector: puts to `to`, in order or as ready, and ends the pipeline.

(defn- next-item
  "The next slot (or End) from the queue; an interrupt cancels the pipeline and the wait goes on."
  [^Pipeline p]
  (let [^LinkedBlockingQueue q (.-q p)]
    (loop []
      (or (try (.take q) (catch InterruptedException _ (cancel! p) nil))
          (recur)))))

(defn- await-slot
  "The outcome of `s`, once its worker completed it; an interrupt cancels the pipeline and the
  wait goes on."
  [p ^Slot s]
  (let [^CompletableFuture r (.-result s)]
    (try (.get r)
         (catch InterruptedException _ (cancel! p) (.join r)))))

(defn- deliverable-now?
  "True when `s`'s outputs may still go to `to`. A scope interrupts its threads once: after the
  collector has seen that interrupt it must never block on `to` again, so a cancelled scope
  delivers nothing more, even the outputs before an earlier failure."
  [^Pipeline p ^Slot s]
  (if (.isCancelled ^Scope (.get ^AtomicReference (.-scope-ref p)))
    (do (cancel! p) false)
    (deliverable? (.get ^AtomicReference (.-stop p)) (.-ordered? p) (.-index s))))

(defn- put-outputs!
  "Puts `outputs` on `to` in order, until one does not go: `to` closed (the pipeline stops) or
  an interrupt (it is cancelled)."
  [^Pipeline p outputs]
  (loop [[v & more] (seq outputs)]
    (when (some? v)
      (let [ok (try (ops/put!! (.-to p) v) (catch InterruptedException _ (cancel! p) ::cancelled))]
        (cond
          (identical? ok ::cancelled) nil
          (not ok) (stop! p (Stop. :to-closed -1 nil nil))
          :else (do (.incrementAndGet ^AtomicLong (.-delivered p)) (recur more)))))))

(defn- deliver!
  "Waits for slot `s` and puts its outputs on `to`, if they are still deliverable."
  [p ^Slot s]
  (let [outcome (await-slot p s)]
    (when (and (instance? List outcome) (deliverable-now? p s))
      (put-outputs! p outcome))))

(defn- collect!
  "The collector's body: delivers every slot the dispatcher queued, giving back each one's
  permit, then waits until the dispatcher and every worker have ended."
  [^Pipeline p]
  (loop [processed 0 total -1]
    (when-not (== processed total)
      (let [x (next-item p)]
        (if (instance? End x)
          (recur processed (.-total ^End x))
          (do (deliver! p x)
              (.release ^Semaphore (.-permits p))
              (recur (inc processed) total))))))
  ;; the result closes only once no other thread of the pipeline is left
  (.join ^CompletableFuture (.-others-ended p)))

(defn- pipeline-label [pname]
  (if (= pname "pipeline") "pipeline" (str "pipeline " pname)))

(defn- failure-ex [pname ^Stop stop]
  (let [^Throwable e (.-error stop)]
    (ex-info (str (pipeline-label pname) ": input " (.-index stop) " failed (" (or (ex-message e) (.getName (class e)))
                  "), so the pipeline stopped: fail-fast; pass :ex-handler to turn failures into outputs and go on")
             {:weft.async/input (.-input stop) :weft.async/index (.-index stop)}
             e)))

(defn- emit-stop!
  "Commits a dev.weft.PipelineStop JFR event (how the pipeline stopped, inputs taken, outputs
  delivered) when a recording enables it; otherwise costs one check."
  [pname ^Stop s taken delivered]
  (when (PipelineStopEvent/isRecorded)
    (PipelineStopEvent/emit pname
                            (case (some-> s .-kind)
                              :failure (str "failed: " (.getName (class (.-error s))))
                              :cancelled "cancelled"
                              :to-closed "to closed"
                              nil "completed")
                            taken delivered)))

(defn- finish!
  "Ends the pipeline once its last thread has: closes `to` (when close?), puts on the result
  channel why it stopped short, if it did, records the JFR event and closes the result."
  [^Pipeline p]
  (let [^Stop s (.get ^AtomicReference (.-stop p))
        pname (.-pname p)
        result (.-result p)]
    (when (.-close? p) (a/close! (.-to p)))
    (case (some-> s .-kind)
      :failure (a/offer! result (failure-ex pname s))
      :cancelled (a/offer! result (CancellationException.
                                   (str (pipeline-label pname) " was cancelled: its scope ended (or its"
                                        " threads were interrupted) before every input was delivered")))
      nil)
    (emit-stop! pname s (.get ^AtomicLong (.-taken p)) (.get ^AtomicLong (.-delivered p)))
    (a/close! result)))

;; ---------------------------------------------------------------------------------------
;; Start.

(defn start!
  "Starts a pipeline (weft.async/pipeline, its arguments checked, `opts` the checked options)
  and returns its result channel."
  [n to xf from opts]
  (let [p (pipeline-state n to xf from opts)
        convey (.-convey p)
        ;; finish! runs after the collector is unregistered: when the result closes, every
        ;; thread of the pipeline has finished
        scope (registry/spawn-owned! "pipeline" opts (str (.-pname p) "-out")
                                     (fn [_] ((convey #(collect! p))))
                                     #(finish! p))]
    (.set ^AtomicReference (.-scope-ref p) scope)
    (.incrementAndGet ^AtomicLong (.-others p))
    (try
      (registry/spawn! scope (str (.-pname p) "-in") (convey #(dispatch! p scope)) #(other-ended! p))
      (catch Throwable t
        (other-ended! p)
        (cancel! p)
        (.offer ^LinkedBlockingQueue (.-q p) (End. 0))
        (throw t)))
    (.-result p)))

(defn check-args!
  "Throws IllegalArgumentException, naming the fix, for a bad argument of weft.async/pipeline."
  [n to xf from]
  (when-not (and (integer? n) (<= 1 n Integer/MAX_VALUE))
    (throw (IllegalArgumentException.
            (str "pipeline: n, the parallelism, must be a positive integer (at most " Integer/MAX_VALUE "); got " (pr-str n)))))
  (when-not (instance? clojure.core.async.impl.protocols.WritePort to)
    (throw (IllegalArgumentException. (str "pipeline: to must be a core.async channel; got " (pr-str to)))))
  (when-not (instance? clojure.core.async.impl.protocols.ReadPort from)
    (throw (IllegalArgumentException. (str "pipeline: from must be a core.async channel; got " (pr-str from)))))
  (when-not (ifn? xf)
    (throw (IllegalArgumentException.
            (str "pipeline: xf must be a transducer, like (map f) for a blocking function f; got " (pr-str xf))))))
