(ns weft.ring.sse
  "Server-sent events: a handler streams events to the browser (EventSource) on its own
  virtual thread, with heartbeats, and learns when the client has gone.

      (require '[weft.ring.sse :as sse])
      (defn ticks [req]
        (sse/event-stream
         (fn [stream]
           (dotimes [i 10]
             (sse/send! stream {:event \"tick\" :data (str i) :id (str i)})
             (Thread/sleep 1000)))
         {:heartbeat 15000 :on-close (fn [] (println \"client gone\"))}))

  The function runs on the request's virtual thread once the response head is sent, and the
  response ends when it returns. `send!` blocks until the event is written and throws an
  IOException once the client has gone. A heartbeat (an SSE comment, which EventSource
  ignores) is written every `:heartbeat`; when one cannot be written the client has gone:
  the stream is closed, `:on-close` is called, and the function's thread is interrupted, so
  a function blocked waiting for its next event (on a queue, a channel, a sleep) ends too.
  No thread stays behind for a client that has gone.

  A heartbeat is a comment line and, 0.1 s later, its end of line: on a connection the
  client closed, the first write provokes the reset that the second one sees, so a client
  that went away is noticed within one heartbeat period (and 0.1 s)."
  (:require [clojure.string :as str]
            [weft.impl.options :as options]
            [weft.ring.protocols :as protocols])
  (:import (java.io IOException OutputStream)
           (java.nio.charset StandardCharsets)
           (java.time Duration)
           (java.util.concurrent.locks ReentrantLock)))

(set! *warn-on-reflection* true)

(defprotocol ^:private Stream
  (-write [stream text]))

(deftype EventStream [^OutputStream out ^ReentrantLock lock closed on-close]
  Stream
  (-write [_ text]
    (.lock lock)
    (try
      (when @closed
        (throw (IOException. "the event stream is closed: the client has gone")))
      (try
        (.write out (.getBytes ^String text StandardCharsets/UTF_8))
        (.flush out)
        (catch Throwable t
          (reset! closed true)
          (throw t)))
      (finally (.unlock lock)))))

(defn- field-lines [field value]
  (apply str (for [line (str/split-lines (str value))] (str field ": " line "\n"))))

(defn format-event
  "The text of one event: `:event` (its type), `:id`, `:retry` (ms) and `:data` (a string;
  several lines become several data lines), ended by a blank line. A string is taken as the
  data."
  [event]
  (let [{:keys [event id retry data]} (if (map? event) event {:data event})]
    (str (when event (field-lines "event" event))
         (when id (field-lines "id" id))
         (when retry (str "retry: " (long retry) "\n"))
         (field-lines "data" (if (nil? data) "" data))
         "\n")))

(defn send!
  "Writes `event` (a map of :event, :id, :retry and :data, or a string of data) to the event
  stream and blocks until it is written. Throws an IOException when the client has gone."
  [stream event]
  (-write stream (format-event event)))

(defn open?
  "False once the client has gone or the stream ended."
  [^EventStream stream]
  (not @(.-closed stream)))

(def ^:private stream-options
  (options/spec "weft.ring.sse/event-stream"
                [{:key :heartbeat :type :duration :default 15000
                  :doc "how often a comment is written to keep the connection alive and to notice a client that has gone; 0 for none"}
                 {:key :on-close :type :fn :doc "called with no arguments once the client has gone or the stream ended"}
                 {:key :headers :valid? map? :must-be "a map of header names to values"
                  :doc "more response headers"}]
                {:example "{:heartbeat 15000}"}))

(defrecord EventStreamBody [f opts])

(defn event-stream
  "A Ring response that streams server-sent events: `(f stream)` runs on the request's
  virtual thread and sends events with `send!`; the response ends when it returns. See the
  namespace docstring for heartbeats and a client that goes away."
  ([f] (event-stream f {}))
  ([f opts]
   (when-not (ifn? f)
     (throw (IllegalArgumentException. (str "weft.ring.sse/event-stream: the first argument must be a function of the stream; got "
                                            (pr-str (type f))))))
   (let [opts (options/check stream-options opts)]
     {:status 200
      :headers (merge {"content-type" "text/event-stream;charset=utf-8"
                       "cache-control" "no-cache"
                       "x-accel-buffering" "no"}
                      (:headers opts))
      :body (->EventStreamBody f opts)})))

(options/document! #'event-stream stream-options)

(defn- heartbeats
  "Writes heartbeats until the stream closes; on a failed write interrupts `owner`."
  [^EventStream stream ^Duration every ^Thread owner]
  (Thread/startVirtualThread
   (fn []
     (try
       (loop []
         (Thread/sleep every)
         (when (open? stream)
           (-write stream ":\n")
           (Thread/sleep 100)
           (-write stream "\n")
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
