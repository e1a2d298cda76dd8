(ns example.app-test
  (:require [clojure.test :refer [deftest is testing]]
            [example.app :as app]
            [weft.pin :refer [no-pins?]]
            [weft.ring :as ring])
  (:import (java.net URI)
           (java.net.http HttpClient HttpRequest HttpResponse HttpResponse$BodyHandlers)))

(set! *warn-on-reflection* true)

(defn- get-text
  "GETs `path` from `server` over real HTTP: [status body]."
  [server path]
  (with-open [client (HttpClient/newHttpClient)]
    (let [request (.build (HttpRequest/newBuilder (URI/create (str "http://127.0.0.1:" (:port server) path))))
          ^HttpResponse response (.send client request (HttpResponse$BodyHandlers/ofString))]
      [(.statusCode response) (.body response)])))

(deftest serves-the-total-over-http
  (let [server (app/start 0)]
    (try
      (is (= [200 "390"] (get-text server "/total?items=tea,milk,bread,eggs,jam,rice,oats,figs,kale,corn")))
      (is (= [400 "give ?items=a,b,c"] (get-text server "/total")))
      (is (= 404 (first (get-text server "/other"))))
      (finally
        (is (true? (ring/stop-server! server)))))))

(deftest prices-every-item-at-once-and-no-more-than-eight
  (let [inside (atom 0)
        most (atom 0)
        counted (fn [item]
                  (swap! most max (swap! inside inc))
                  (try (Thread/sleep 20) (count item)
                       (finally (swap! inside dec))))]
    (with-redefs [app/price counted]
      (is (= {:status 200 :headers {"content-type" "text/plain"} :body "60"}
             (app/handler {:uri "/total" :query-string (str "items=" (apply str (interpose "," (repeat 20 "abc"))))}))))
    (testing "the calls overlapped, within the cap"
      (is (< 1 @most 9)))))

(deftest the-handler-does-not-pin
  (is (no-pins? (app/handler {:uri "/total" :query-string "items=tea,milk"}))))
