(ns ring.websocket.protocols
  "A stand-in for ring-core's namespace of the same name (ring-core is on Clojars only, which
  this build cannot reach): the same protocols, methods and arguments as ring-core 1.11+, so
  weft.ring's run-time resolution of them is tested as it runs with the real one.")

(defprotocol Listener
  (on-open [listener socket])
  (on-message [listener socket message])
  (on-pong [listener socket data])
  (on-error [listener socket throwable])
  (on-close [listener socket code reason]))

(defprotocol PingListener
  (on-ping [listener socket data]))

(defprotocol Socket
  (-open? [socket])
  (-send [socket message])
  (-ping [socket data])
  (-pong [socket data])
  (-close [socket code reason]))

(defprotocol AsyncSocket
  (-send-async [socket message succeed fail]))
