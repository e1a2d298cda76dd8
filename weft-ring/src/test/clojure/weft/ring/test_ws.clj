(ns weft.ring.test-ws
  "A WebSocket client for tests: the JDK's own (java.net.http), on virtual threads, reading
  only as much as the test asks for."
  (:import (java.net URI)
           (java.net.http HttpClient WebSocket WebSocket$Listener)
           (java.nio ByteBuffer)
           (java.util.concurrent CompletableFuture Executors LinkedBlockingQueue TimeUnit)))

(set! *warn-on-reflection* true)

(def client
  (delay (-> (HttpClient/newBuilder)
             (.executor (Executors/newVirtualThreadPerTaskExecutor))
             (.build))))

(defn connect
  "Opens a WebSocket to 127.0.0.1:`port``path`. Returns {:ws :messages :closed :errors}:
  :messages a queue of received Strings and byte arrays, :closed a promise of [code reason].
  With :auto-read? false the client reads nothing until `(read-more! c n)`."
  [port path & {:keys [auto-read?] :or {auto-read? true}}]
  (let [messages (LinkedBlockingQueue.)
        closed (promise)
        text (StringBuilder.)
        listener (reify WebSocket$Listener
                   (onOpen [_ ws] (when auto-read? (.request ws 1)))
                   (onText [_ ws data last]
                     (.append text data)
                     (when last
                       (.put messages (str text))
                       (.setLength text 0))
                     (when auto-read? (.request ws 1))
                     nil)
                   (onBinary [_ ws data last]
                     (let [b (byte-array (.remaining ^ByteBuffer data))]
                       (.get ^ByteBuffer data b)
                       (.put messages b))
                     (when auto-read? (.request ws 1))
                     nil)
                   (onPong [_ ws data]
                     (.put messages [:pong (.remaining ^ByteBuffer data)])
                     (when auto-read? (.request ws 1))
                     nil)
                   (onClose [_ ws code reason]
                     (deliver closed [code reason])
                     nil)
                   (onError [_ ws error]
                     (deliver closed [:error error])))
        ws (.join (.buildAsync (.newWebSocketBuilder ^HttpClient @client)
                               (URI. (str "ws://127.0.0.1:" port path)) listener))]
    {:ws ws :messages messages :closed closed}))

(defn read-more! [{:keys [^WebSocket ws]} n] (.request ws (long n)))

(defn send-text! [{:keys [^WebSocket ws]} ^String s]
  (.join (.sendText ws s true)))

(defn send-binary! [{:keys [^WebSocket ws]} ^bytes b]
  (.join (.sendBinary ws (ByteBuffer/wrap b) true)))

(defn ping! [{:keys [^WebSocket ws]}]
  (.join (.sendPing ws (ByteBuffer/wrap (byte-array [1 2 3])))))

(defn close! [{:keys [^WebSocket ws]} code reason]
  (.join (.sendClose ws (int code) reason)))

(defn take!
  "The next message, waiting at most 30 s (a hang guard)."
  [{:keys [^LinkedBlockingQueue messages]}]
  (.poll messages 30 TimeUnit/SECONDS))
