(ns ^:no-doc weft.ring.impl.websocket
  "ring-core's WebSocket protocols, found at run time: weft-ring does not depend on ring-core
  (it is on Clojars only), but when an application has it, its Listener values work as
  listeners and weft's sockets satisfy its Socket protocols."
  (:import (dev.weft.ring RingWebSocket)
           (java.io FileNotFoundException)))

(set! *warn-on-reflection* true)

(defn- missing-namespace? [^Throwable e]
  (some #(instance? FileNotFoundException %) (take-while some? (iterate ex-cause e))))

(defn- ring-protocols
  "The namespace ring.websocket.protocols, loaded if it is on the class path, else nil."
  []
  (or (find-ns 'ring.websocket.protocols)
      (try
        (require 'ring.websocket.protocols)
        (find-ns 'ring.websocket.protocols)
        (catch Exception e
          (when-not (missing-namespace? e) (throw e))
          nil))))

(defn- extend-ring-sockets!
  "Makes weft's socket satisfy ring-core's Socket and AsyncSocket protocols."
  [ns]
  (let [proto (fn [sym] @(ns-resolve ns sym))]
    (extend RingWebSocket
      (proto 'Socket)
      {:-open? (fn [^RingWebSocket s] (.isOpen s))
       :-send (fn [^RingWebSocket s message] (.send s message))
       :-ping (fn [^RingWebSocket s data] (.ping s data))
       :-pong (fn [^RingWebSocket s data] (.pong s data))
       :-close (fn [^RingWebSocket s code reason] (.close s (int code) (str reason)))}
      (proto 'AsyncSocket)
      {:-send-async (fn [^RingWebSocket s message succeed fail] (.sendAsync s message succeed fail))})))

(defn listener-caller
  "The function weft's sockets call a listener that is not a map through:
  ([listener] -> whether it satisfies ring-core's Listener) and
  ([listener event socket a b] -> calls its method for `event`). nil without ring-core.
  Loading it also extends ring-core's socket protocols to weft's socket."
  []
  (when-let [ns (ring-protocols)]
    (extend-ring-sockets! ns)
    (let [listener @(ns-resolve ns 'Listener)
          on-open @(ns-resolve ns 'on-open)
          on-message @(ns-resolve ns 'on-message)
          on-pong @(ns-resolve ns 'on-pong)
          on-error @(ns-resolve ns 'on-error)
          on-close @(ns-resolve ns 'on-close)]
      (fn
        ([l] (satisfies? listener l))
        ([l event socket a b]
         (case event
           :on-open (on-open l socket)
           :on-message (on-message l socket a)
           :on-pong (on-pong l socket a)
           :on-error (on-error l socket a)
           :on-close (on-close l socket a b)))))))
