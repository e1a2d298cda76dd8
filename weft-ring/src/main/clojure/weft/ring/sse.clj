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
  (:require [weft.impl.clojure-version]   ; first: on a Clojure older than weft supports, this fails naming the fix
            [clojure.string :as str]
            [weft.impl.options :as options]
            [weft.ring.impl.sse :as impl]))

(set! *warn-on-reflection* true)

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
  (impl/write! stream (format-event event)))

(defn open?
  "False once the client has gone or the stream ended."
  [stream]
  (impl/open? stream))

(def ^:private stream-options
  (options/spec "weft.ring.sse/event-stream"
                [{:key :heartbeat :type :duration :default 15000
                  :doc "how often a comment is written to keep the connection alive and to notice a client that has gone; 0 for none"}
                 {:key :on-close :type :fn :doc "called with no arguments once the client has gone or the stream ended"}
                 {:key :headers :valid? map? :must-be "a map of header names to values"
                  :doc "more response headers"}]
                {:example "{:heartbeat 15000}"}))

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
      :body (impl/body f opts)})))

(options/document! #'event-stream stream-options)
