(ns weft.ring.test-http
  "A small HTTP/1.1 client over raw sockets, for tests that must control every byte
  (malformed requests, slow clients) and see every byte of the answer (chunks as they
  arrive). Only talks to 127.0.0.1."
  (:require [clojure.string :as str])
  (:import (java.io ByteArrayOutputStream InputStream OutputStream)
           (java.net InetSocketAddress Socket)
           (java.nio.charset StandardCharsets)))

(set! *warn-on-reflection* true)

(def read-timeout-ms
  "Hang guard for every read: a test that waits this long has failed."
  30000)

(defn connect
  "A socket connected to 127.0.0.1:`port`, with a read timeout as a hang guard."
  ^Socket [port]
  (doto (Socket.)
    (.connect (InetSocketAddress. "127.0.0.1" (int port)) 10000)
    (.setSoTimeout read-timeout-ms)))

(defn send!
  "Writes `data` (a string, sent as ISO-8859-1, or bytes) to `socket` and flushes."
  [^Socket socket data]
  (let [^bytes b (if (string? data) (.getBytes ^String data StandardCharsets/ISO_8859_1) data)
        out (.getOutputStream socket)]
    (.write out b)
    (.flush out)))

(defn- read-line*
  "The next CRLF-terminated line (without it), or nil at end of stream."
  [^InputStream in]
  (let [buf (StringBuilder.)]
    (loop []
      (let [b (.read in)]
        (cond
          (neg? b) (when (pos? (.length buf)) (str buf))
          (= b 10) (let [s (str buf)] (if (str/ends-with? s "\r") (subs s 0 (dec (count s))) s))
          :else (do (.append buf (char b)) (recur)))))))

(defn read-head
  "Reads a response's status line and headers from `socket`: {:status :headers}, header
  names lowercased to a vector of values; nil when the server closed the connection first."
  [^Socket socket]
  (let [in (.getInputStream socket)]
    (when-let [status-line (read-line* in)]
      (let [[_ version status] (re-matches #"(HTTP/\d\.\d) (\d{3}).*" status-line)]
        (when-not status
          (throw (ex-info (str "not an HTTP status line: " (pr-str status-line)) {})))
        (loop [headers {}]
          (let [line (read-line* in)]
            (if (or (nil? line) (= "" line))
              {:version version :status (parse-long status) :headers headers}
              (let [i (str/index-of line ":")
                    k (str/lower-case (subs line 0 i))
                    v (str/trim (subs line (inc i)))]
                (recur (update headers k (fnil conj []) v))))))))))

(defn header
  "The first value of header `k` in a response, or nil."
  [response k]
  (first (get-in response [:headers k])))

(defn read-chunk
  "The next chunk of a chunked body as bytes; nil after the last (empty) chunk. Returns as
  soon as the chunk's data is in: the CRLF that ends a chunk is read before the next one's
  size (Jetty sends it together with the next chunk)."
  ^bytes [^Socket socket]
  (let [in (.getInputStream socket)
        line (let [l (read-line* in)] (if (= "" l) (read-line* in) l))
        size (Long/parseLong (first (str/split line #";")) 16)]
    (if (zero? size)
      (do (read-line* in) nil)
      (.readNBytes in (int size)))))

(defn read-body
  "Reads the body that follows `head`: chunked, by Content-Length, or to the end of stream."
  ^bytes [^Socket socket head]
  (let [in (.getInputStream socket)]
    (cond
      (= "chunked" (some-> (header head "transfer-encoding") str/lower-case))
      (let [out (ByteArrayOutputStream.)]
        (loop []
          (when-let [b (read-chunk socket)]
            (.write out ^bytes b)
            (recur)))
        (.toByteArray out))

      (header head "content-length")
      (.readNBytes in (int (parse-long (header head "content-length"))))

      :else (.readAllBytes in))))

(defn read-response
  "Reads one whole response: {:status :headers :bytes :body}, :body decoded as UTF-8; nil
  when the server closed the connection without answering."
  [^Socket socket]
  (when-let [head (read-head socket)]
    (let [b (read-body socket head)]
      (assoc head :bytes b :body (String. b StandardCharsets/UTF_8)))))

(defn closed?
  "True when the server has closed `socket` (a read returns end of stream or fails)."
  [^Socket socket]
  (try
    (neg? (.read (.getInputStream socket)))
    (catch java.net.SocketException _ true)))

(defn request-text
  "The text of a request: `method` `target` HTTP/1.1, a Host header, `headers` (a map or
  a seq of [name value] pairs, so names may repeat), and `body` with its Content-Length."
  [method target & {:keys [headers body version] :or {version "HTTP/1.1"}}]
  (let [body-bytes (when body (if (string? body) (.getBytes ^String body StandardCharsets/UTF_8) body))]
    (str method " " target " " version "\r\n"
         "Host: 127.0.0.1\r\n"
         (apply str (for [[k v] headers] (str k ": " v "\r\n")))
         (when body-bytes (str "Content-Length: " (alength ^bytes body-bytes) "\r\n"))
         "\r\n"
         (when body-bytes (String. ^bytes body-bytes StandardCharsets/ISO_8859_1)))))

(defn exchange
  "Sends `data` on a new connection and reads one response (nil when the server closed
  without one)."
  [port data]
  (with-open [s (connect port)]
    (send! s data)
    (read-response s)))

(defn http
  "One request on a new connection, with Connection: close; returns the response map."
  [port method target & {:keys [headers] :as opts}]
  (exchange port (apply request-text method target
                        (mapcat identity (assoc opts :headers (concat headers [["Connection" "close"]]))))))
