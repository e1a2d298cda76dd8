(ns weft.ring.tls-test
  "TLS and HTTP/2 over 127.0.0.1 with real clients: curl, the JDK's HttpClient and SSLSocket,
  against certificates the test makes with the JDK's keytool."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as sh]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [weft.ring :as ring]
            [weft.ring.test-support :refer [await! make-keystore! password]])
  (:import (java.io FileInputStream)
           (java.nio.file Files)
           (java.nio.file.attribute FileAttribute)
           (java.security KeyStore)
           (java.security.cert X509Certificate)
           (java.util Base64)
           (java.util.concurrent Executors ExecutorService Future TimeUnit)
           (java.util.concurrent.atomic AtomicBoolean AtomicInteger)
           (javax.net.ssl SSLContext SSLSocket TrustManagerFactory)))

(set! *warn-on-reflection* true)

(defn- pem-files!
  "Writes the key store's certificate and private key as PEM files; returns [cert key]."
  [ks-file dir]
  (let [ks (doto (KeyStore/getInstance "PKCS12") (.load (FileInputStream. (io/file ks-file)) (.toCharArray ^String password)))
        enc (Base64/getMimeEncoder 64 (.getBytes "\n"))
        cert (io/file dir "cert.pem")
        key (io/file dir "key.pem")]
    (spit cert (str "-----BEGIN CERTIFICATE-----\n" (.encodeToString enc (.getEncoded (.getCertificate ks "server")))
                    "\n-----END CERTIFICATE-----\n"))
    (spit key (str "-----BEGIN PRIVATE KEY-----\n"
                   (.encodeToString enc (.getEncoded (.getKey ks "server" (.toCharArray ^String password))))
                   "\n-----END PRIVATE KEY-----\n"))
    [(str cert) (str key)]))

(defn- temp-dir [] (.toFile (Files/createTempDirectory "weft-tls" (make-array FileAttribute 0))))

(defn- curl [& args]
  (apply sh/sh "curl" "-sS" "--max-time" "20" args))

(def ^:private protocol-handler
  (fn [req] {:status 200 :headers {"content-type" "text/plain"}
             :body (str (:protocol req) " " (name (:scheme req)))}))

(deftest tls-with-a-keystore-and-plain-http-at-once
  (let [dir (temp-dir)
        ks (io/file dir "server.p12")
        _ (make-keystore! ks "first")
        [cert _] (pem-files! ks dir)
        s (ring/run-server protocol-handler {:port 0 :host "127.0.0.1" :ssl-port 0
                                             :keystore (str ks) :keystore-password password})]
    (try
      (is (= "HTTP/1.1 https" (:out (curl "--cacert" cert (str "https://127.0.0.1:" (:ssl-port s) "/"))))
          "curl verifies the certificate the test made")
      (is (= "HTTP/1.1 http" (:out (curl (str "http://127.0.0.1:" (:port s) "/")))) "and the plain port at once")
      (testing "TLS 1.1 and older are refused"
        (is (not (zero? (:exit (curl "-k" "--tlsv1.1" "--tls-max" "1.1" (str "https://127.0.0.1:" (:ssl-port s) "/")))))))
      (is (= "HTTP/1.1 https" (:out (curl "-k" "--tlsv1.2" "--tls-max" "1.2" (str "https://127.0.0.1:" (:ssl-port s) "/")))))
      (finally (ring/stop-server! s)))))

(deftest tls-with-pem-files-and-http2
  (let [dir (temp-dir)
        ks (io/file dir "server.p12")
        _ (make-keystore! ks "pem")
        [cert key] (pem-files! ks dir)
        s (ring/run-server protocol-handler {:port 0 :host "127.0.0.1" :ssl-port 0 :ssl-cert cert :ssl-key key
                                             :http2? true})]
    (try
      (is (= "HTTP/2 https" (:out (curl "--http2" "--cacert" cert (str "https://127.0.0.1:" (:ssl-port s) "/"))))
          "h2 over TLS, chosen by ALPN")
      (is (= "HTTP/1.1 https" (:out (curl "--http1.1" "--cacert" cert (str "https://127.0.0.1:" (:ssl-port s) "/"))))
          "HTTP/1.1 clients still served on the TLS port")
      (is (= "HTTP/2 http" (:out (curl "--http2-prior-knowledge" (str "http://127.0.0.1:" (:port s) "/"))))
          "h2c with prior knowledge")
      (is (= "HTTP/2 http" (:out (curl "--http2" (str "http://127.0.0.1:" (:port s) "/"))))
          "h2c by Upgrade")
      (finally (ring/stop-server! s)))))

(deftest http2-is-off-by-default
  (let [s (ring/run-server protocol-handler {:port 0 :host "127.0.0.1"})]
    (try
      (is (= "HTTP/1.1 http" (:out (curl "--http2" (str "http://127.0.0.1:" (:port s) "/"))))
          "an Upgrade: h2c is ignored")
      (finally (ring/stop-server! s)))))

(defn- trusting ^SSLContext [files]
  (let [ts (doto (KeyStore/getInstance "PKCS12") (.load nil nil))]
    (doseq [[i f] (map-indexed vector files)]
      (let [ks (doto (KeyStore/getInstance "PKCS12") (.load (FileInputStream. (io/file f)) (.toCharArray ^String password)))]
        (.setCertificateEntry ts (str "c" i) (.getCertificate ks "server"))))
    (doto (SSLContext/getInstance "TLS")
      (.init nil (.getTrustManagers (doto (TrustManagerFactory/getInstance (TrustManagerFactory/getDefaultAlgorithm)) (.init ts))) nil))))

(defn- served-cn
  "The CN of the certificate a new TLS handshake with 127.0.0.1:`port` gets."
  [^SSLContext ctx port]
  (with-open [^SSLSocket sock (.createSocket (.getSocketFactory ctx) "127.0.0.1" (int port))]
    (.startHandshake sock)
    (let [^X509Certificate c (first (.getPeerCertificates (.getSession sock)))]
      (second (re-find #"CN=([^,]+)" (.getName (.getSubjectX500Principal c)))))))

(deftest a-renewed-certificate-is-reloaded-under-traffic-without-a-failed-request
  (let [dir (temp-dir)
        live (io/file dir "server.p12")
        old (io/file dir "old.p12")
        renewed (io/file dir "renewed.p12")
        _ (make-keystore! old "old")
        _ (make-keystore! renewed "renewed")
        _ (io/copy old live)
        ctx (trusting [old renewed])
        s (ring/run-server (fn [_] {:status 200 :headers {} :body "ok"})
                           {:port 0 :host "127.0.0.1" :ssl-port 0 :keystore (str live) :keystore-password password})
        port (:ssl-port s)
        running (AtomicBoolean. true)
        ok (AtomicInteger.)
        failures (atom [])
        client (fn []
                 ;; A new connection (a new handshake) for every request.
                 (while (.get running)
                   (try
                     (with-open [^SSLSocket sock (.createSocket (.getSocketFactory ctx) "127.0.0.1" (int port))]
                       (let [out (.getOutputStream sock)]
                         (.write out (.getBytes "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"))
                         (.flush out)
                         (let [resp (String. (.readAllBytes (.getInputStream sock)))]
                           (if (str/starts-with? resp "HTTP/1.1 200")
                             (.incrementAndGet ok)
                             (swap! failures conj resp)))))
                     (catch Exception e (swap! failures conj e)))))]
    (try
      (is (= "old" (served-cn ctx port)))
      (with-open [^ExecutorService pool (Executors/newVirtualThreadPerTaskExecutor)]
        (let [fs (doall (repeatedly 4 #(.submit pool ^Runnable client)))
              ;; Counted, not timed: half a second of a loaded machine may hold few handshakes.
              served-more (fn [n] (let [from (.get ok)]
                                    (await! #(or (seq @failures) (<= (+ from n) (.get ok))) 60000)))]
          (served-more 5)
          (io/copy renewed live) ; the renewed certificate lands where the old one was
          (is (true? (ring/reload-ssl! s)))
          (served-more 5)
          (.set running false)
          (doseq [^Future f fs] (.get f 30 TimeUnit/SECONDS))))
      (is (= [] @failures) "no request failed while the certificate changed")
      (is (<= 10 (.get ok)) "requests kept coming during the reload")
      (is (= "renewed" (served-cn ctx port)) "new handshakes get the renewed certificate")
      (testing "a broken file leaves the server with the certificate it has"
        (spit live "not a key store")
        (is (thrown? Exception (ring/reload-ssl! s)))
        (is (= "renewed" (served-cn ctx port))))
      (finally (ring/stop-server! s)))))
