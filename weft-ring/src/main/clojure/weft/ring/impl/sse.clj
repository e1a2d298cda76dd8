(ns ^:no-doc weft.ring.impl.sse
  "The machinery behind weft.ring.sse: the stream a handler writes events to, the response
  body that carries the handler's function to the writer, and the heartbeats. Not an API:
  weft.ring.sse is."
  (:require [weft.ring.protocols :as protocols])
  (:import (java.io IOException OutputStream)
           (java.nio.charset StandardCharsets)
           (java.time Duration)
           (java.util.concurrent.locks ReentrantLock)))

(set! *warn-on-reflection* true)

(deftype EventStream [^OutputStream out ^ReentrantLock lock closed on-close])

(defn write!
  "Writes `text` to the stream and flushes it, one writer at a time. Throws an IOException
  once the stream is closed or a write failed (the client has gone)."
  [^EventStream stream ^String text]
  (let [^ReentrantLock lock (.-lock stream)
        ^OutputStream out (.-out stream)
        closed (.-closed stream)]
    (.lock lock)
    (try
      (when @closed
        (throw (IOException. "the event stream is closed: the client has gone")))
      (try
        (.write out (.getBytes text StandardCharsets/UTF_8))
        (.flush out)
        (catch Throwable t
          (reset! closed true)
          (throw t)))
      (finally (.unlock lock)))))

(defn open?
  "False once the client has gone or the stream ended."
  [^EventStream stream]
  (not @(.-closed stream)))

(defrecord EventStreamBody [f opts])

(defn body
  "The response body that runs `(f stream)` with `opts` (checked by weft.ring.sse) once the
  response head is sent."
  [f opts]
  (->EventStreamBody f opts))

(defn- heartbeats
  "Writes heartbeats until the stream closes; on a failed write interrupts `owner`."
  [stream ^Duration every ^Thread owner]
  (Thread/startVirtualThread
   (fn []
     (try
       (loop []
         (Thread/sleep every)
         (when (open? stream)
           (write! stream ":\n")
           (Thread/sleep 100)
           (write! stream "\n")
           (recur)))
       (catch InterruptedException _)
       (catch Throwable _
         ;; The client has gone: end the handler's wait for its next event.
         (.interrupt owner))))))

(extend-protocol protocols/StreamableResponseBody
  EventStreamBody
  (write-body-to-stream [{:keys [f opts]} _ out]
    (let [closed (atom false)
          stream (->EventStream out (ReentrantLock.) closed (:on-close opts))
          ^Duration every (:heartbeat opts)
          beat (when (pos? (.toNanos every)) (heartbeats stream every (Thread/currentThread)))]
      (.flush ^OutputStream out) ; the head goes out now: EventSource opens at once
      (try
        (f stream)
        (finally
          (reset! closed true)
          (some-> ^Thread beat .interrupt)
          (Thread/interrupted)
          (when-let [on-close (:on-close opts)] (on-close)))))))
