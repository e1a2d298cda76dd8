(ns weft.context-test
  (:require [clojure.test :refer [deftest is testing]]
            [weft.context :as c :refer [defcontext with-context]]
            [weft.thread :as w])
  (:import (java.util.concurrent Callable CompletionService ExecutorCompletionService ExecutorService Executors)))

(defcontext user "The user, for tests.")
(defcontext retries "Retries, for tests." {:default 3})
(def ^:dynamic *dyn* :root)
(def plain-var 1)

(deftest context-key-options-are-checked
  (is (= 7 @(c/context-key "seven" {:default 7})))
  (is (thrown-with-msg? IllegalArgumentException #"weft.context/defcontext: unknown option :defualt \(did you mean :default\?\)"
                        (c/context-key "x" {:defualt 1})))
  (is (thrown-with-msg? IllegalArgumentException #"weft.context/defcontext: options must be a map, like \{:default 3\}; got \[1\]"
                        (try (eval '(weft.context/defcontext bad-opts "doc" [1]))
                             (catch clojure.lang.Compiler$CompilerException e (throw (ex-cause e)))))
      "when it is compiled"))

(deftest defcontext-reads-like-a-var
  (is (nil? @user))
  (is (= 3 @retries))
  (is (= :nobody (c/value user :nobody)))
  (is (false? (c/bound? user)))
  (is (= "Retries, for tests." (:doc (meta #'retries))))
  (is (c/context-key? retries))
  (is (= "#weft/context weft.context-test/retries" (pr-str retries))))

(deftest with-context-binds-for-its-body
  (is (= [:ann 1 :bob :ann]
         (with-context [user :ann retries 1]
           [@user @retries (with-context [user :bob] @user) @user])))
  (is (nil? @user) "the binding ended with the body")
  (testing "values are evaluated before any key is bound"
    (is (= [nil :x] (with-context [user :x retries @user] [@retries @user]))))
  (testing "nil is a value"
    (is (true? (with-context [user nil] (c/bound? user)))))
  (testing "a key conveyed to another thread is bound there too"
    (is (true? (with-context [user :ann] @(w/vfuture (c/bound? user))))))
  (testing "no bindings: the body runs, as with binding"
    (is (= [:body nil] (with-context [] [:body @user])))
    (is (= :last (with-context [] :first :last))))
  (testing "bindings end when the body throws"
    (is (thrown? clojure.lang.ExceptionInfo (with-context [user :ann] (throw (ex-info "boom" {})))))
    (is (nil? @user))))

(deftest every-weft-thread-conveys-context-keys
  (with-context [user :ann]
    (is (= :ann @(w/vfuture @user)))
    (let [seen (promise)]
      (.join (w/vthread (deliver seen @user)))
      (is (= :ann @seen)))
    (with-open [^ExecutorService ex (w/executor "ctx" {:threads :platform})]
      (is (= :ann @(.submit ex ^Callable (fn [] @user)))))))

(deftest wrap-conveys-through-functions-and-plain-executors
  (with-open [^ExecutorService raw (Executors/newSingleThreadExecutor)]
    (let [^ExecutorService ex (c/wrap raw)
          f (with-context [user :ann] (c/wrap (fn [x] [x @user])))]
      (is (= [1 :ann] @(.submit raw ^Callable (fn [] (f 1)))) "a wrapped fn carries its keys anywhere")
      (is (= :bob (with-context [user :bob] @(.submit ex ^Callable (fn [] @user)))))
      (is (nil? @(.submit raw ^Callable (fn [] @user))) "the plain executor conveys nothing")
      (let [cs (c/wrap (ExecutorCompletionService. raw))]
        (with-context [user :cy] (.submit ^CompletionService cs ^Callable (fn [] @user)))
        (is (= :cy @(.take ^CompletionService cs))))))
  (is (= :dee (c/call-with (with-context [user :dee] (c/capture)) (fn [] @user))))
  (is (thrown-with-msg? IllegalArgumentException #"function, Executor" (c/wrap 42))))

(defn- expansion-error
  "The message of the error compiling `form` in this namespace."
  [form]
  (binding [*ns* (the-ns 'weft.context-test)]
    (try (eval form) nil
         (catch Exception e (ex-message (or (ex-cause e) e))))))

(deftest with-context-checks-its-bindings-when-compiled
  (is (re-find #"\*dyn\* is a dynamic var, not a context key; bind it with clojure.core/binding"
               (expansion-error '(weft.context/with-context [*dyn* 1] :body))))
  (is (re-find #"nil is not a context key; define one with weft.context/defcontext"
               (expansion-error '(weft.context/with-context [nil 1] :body))))
  (is (re-find #"plain-var is not a context key; define it with \(weft.context/defcontext plain-var\)"
               (expansion-error '(weft.context/with-context [plain-var 1] :body))))
  (is (re-find #"k is a local; .* use with-context\*"
               (expansion-error '(let [k weft.context-test/user] (weft.context/with-context [k 1] :body)))))
  (is (re-find #"nope does not name a var"
               (expansion-error '(weft.context/with-context [nope 1] :body))))
  (is (re-find #"even number of forms"
               (expansion-error '(weft.context/with-context [user] :body))))
  (is (re-find #"needs a vector"
               (expansion-error '(weft.context/with-context (user 1) :body)))))

(deftest with-context*-takes-keys-at-run-time
  (is (= [:ann 5] (c/with-context* {user :ann retries 5} (fn [] [@user @retries]))))
  (is (= :x (c/with-context* {} (fn [] :x))))
  (is (thrown-with-msg? IllegalArgumentException #"must not be nil"
                        (c/with-context* {nil 1} (fn [] :x))))
  (is (thrown-with-msg? IllegalArgumentException #":k is not a context key"
                        (c/with-context* {:k 1} (fn [] :x))))
  (let [k (c/context-key "runtime" {:default :d})]
    (is (= :d @k))
    (is (= :v (c/with-context* {k :v} #(deref k))))))
