(ns weft.ring.protocols
  "The open protocol for Ring response bodies.

  Ring's own `StreamableResponseBody` lives in ring-core, which weft does not depend on;
  this protocol has the same name, method and arguments, so an extension written for
  Ring ports by changing its namespace. weft.ring writes String, byte array and nil bodies
  itself, without calling the protocol (they are sent in one write, with a
  Content-Length); every other body goes through `write-body-to-stream`.

  Built in: nil (nothing), String (encoded in the charset of the response's
  content-type, UTF-8 when it names none), byte arrays, `clojure.lang.ISeq` (each
  element as a String, or as bytes when it is a byte array, flushed one by one, so a
  lazy seq streams), `java.io.File` and `java.io.InputStream` (copied, then closed).
  Any other value is refused with an IllegalArgumentException that names its class: the
  request gets a 500, and the message is logged.

  Extend it for your own types:

      (extend-protocol weft.ring.protocols/StreamableResponseBody
        java.nio.file.Path
        (write-body-to-stream [path _response out]
          (java.nio.file.Files/copy path ^java.io.OutputStream out)))"
  (:require [weft.impl.clojure-version])   ; first: on a Clojure older than weft supports, this fails naming the fix
  (:import (clojure.lang ISeq)
           (dev.weft.ring RingResponse)
           (java.io File InputStream OutputStream)
           (java.nio.charset Charset)
           (java.nio.file Files)))

(set! *warn-on-reflection* true)

(defprotocol StreamableResponseBody
  "A value that can be written as the body of a Ring response."
  (write-body-to-stream [body response output-stream]
    "Writes `body` to `output-stream`, a java.io.OutputStream onto the HTTP response,
    blocking as it needs to; `response` is the Ring response map (for its headers). Runs
    on the request's virtual thread. Each write is sent as it is made, and `flush` sends
    nothing more; weft closes the stream afterwards, which ends the response. Throwing
    before anything was written answers 500; throwing later closes the connection."))

(defn- chunk-bytes ^bytes [chunk ^Charset charset]
  (if (bytes? chunk)
    chunk
    (.getBytes (str chunk) charset)))

(extend-protocol StreamableResponseBody
  nil
  (write-body-to-stream [_ _ _])

  String
  (write-body-to-stream [body response output-stream]
    (.write ^OutputStream output-stream (.getBytes body (RingResponse/charset response))))

  ISeq
  (write-body-to-stream [body response output-stream]
    (let [out ^OutputStream output-stream
          charset (RingResponse/charset response)]
      (doseq [chunk body]
        (.write out (chunk-bytes chunk charset))
        (.flush out))))

  File
  (write-body-to-stream [body _ output-stream]
    (Files/copy (.toPath body) ^OutputStream output-stream))

  InputStream
  (write-body-to-stream [body _ output-stream]
    (with-open [in body]
      (.transferTo in ^OutputStream output-stream)))

  Object
  (write-body-to-stream [body _ _]
    (throw (IllegalArgumentException.
            (str "the response :body is a " (.getName (class body))
                 ", which weft.ring cannot write; return a String, byte array, seq, java.io.File,"
                 " java.io.InputStream or nil, or extend weft.ring.protocols/StreamableResponseBody"
                 " to " (.getName (class body)))))))

;; Byte arrays: extended apart because `byte/1` (array class syntax) only reads on Clojure 1.12+,
;; and weft.ring loads on 1.11 too.
(extend (Class/forName "[B")
  StreamableResponseBody
  {:write-body-to-stream (fn [body _ output-stream]
                           (.write ^OutputStream output-stream ^bytes body))})
