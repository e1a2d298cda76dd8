(ns weft.otel-test
  (:require [clojure.test :refer [deftest is]]
            [weft.thread :as w]
            [weft.otel :as otel]
            [weft.scope :refer [with-scope fork join]])
  (:import (io.opentelemetry.api.trace Span SpanContext TraceFlags TraceState)
           (io.opentelemetry.context Scope)))

(set! *warn-on-reflection* true)

(defn- current-span-id [] (.getSpanId (.getSpanContext (Span/current))))

(deftest the-current-span-follows-vthread-vfuture-and-forks
  (with-open [_ (otel/install!)]
    (let [sc (SpanContext/create "0af7651916cd43dd8448eb211c80319c" "b7ad6b7169203331"
                                 (TraceFlags/getSampled) (TraceState/getDefault))]
      (with-open [^Scope _ (.makeCurrent (Span/wrap sc))]
        (is (= "b7ad6b7169203331" @(w/vfuture (current-span-id))))
        (is (= "b7ad6b7169203331" (let [p (promise)] (.join (w/vthread (deliver p (current-span-id)))) @p)))
        (with-scope [s]
          (let [f (fork s (current-span-id))]
            (join s)
            (is (= "b7ad6b7169203331" @f)))))
      (is (not (.isValid (.getSpanContext (Span/current)))) "the span is no longer current here")
      (is (= "0000000000000000" @(w/vfuture (current-span-id))) "nor in a thread started after"))))
