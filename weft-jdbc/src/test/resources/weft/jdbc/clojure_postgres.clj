(ns weft.jdbc.clojure-postgres
  "The Clojure side of weft-jdbc against the database tier's real PostgreSQL, driven by
  dev.weft.jdbc.ClojureJavaJdbcPostgresTest: org.clojure/java.jdbc through a `{:datasource ds}`
  db-spec over a dev.weft.jdbc.WeftDataSource, weft.pool for the pool's statistics and its close,
  weft.thread/vfuture for many virtual threads at once. Each function does the work and returns what
  it saw as plain data; the JUnit test asserts on it.

  Every data source here tags its backends with the pgjdbc property ApplicationName, so
  pg_stat_activity counts exactly the connections of that pool (the admin queries of `backends` go
  through DriverManager, untagged)."
  (:require [clojure.java.jdbc :as jdbc]
            [weft.thread :as weft]
            [weft.pool :as pool])
  (:import (dev.weft.jdbc WeftDataSource)
           (dev.weft.pool Pool)
           (java.sql Connection SQLException)
           (java.time Duration)))

(set! *warn-on-reflection* true)

(defn data-source
  "A WeftDataSource named `app` of at most `max-size` connections to `url`; its backends carry
  application_name `app`."
  ^WeftDataSource [url app max-size]
  (-> (WeftDataSource/builder ^String app ^String url)
      (.property "ApplicationName" app)
      (.maxSize (int max-size))
      (.maxWait (Duration/ofSeconds 60))
      (.build)))

(defn- pool-of ^Pool [^WeftDataSource ds]
  (.pool ds))

(defn backends
  "How many backends with application_name `app` the server has now (asked over a connection of
  its own, not the pool's)."
  [url app]
  (jdbc/query {:connection-uri url}
              ["select count(*) as n from pg_stat_activity where application_name = ?" app]
              {:result-set-fn first :row-fn :n}))

(defn queries
  "Plain queries and inserts through java.jdbc: a parameterised select, a table written with
  insert-multi! and read back, and the backend each of three queries ran on."
  [^WeftDataSource ds]
  (let [db {:datasource ds}]
    (jdbc/db-do-commands db ["drop table if exists weft_clj_items"
                             "create table weft_clj_items (id int primary key, name text not null)"])
    (jdbc/insert-multi! db :weft_clj_items [{:id 1 :name "one"} {:id 2 :name "two"}])
    {:sum (jdbc/query db ["select ?::int + ?::int as n" 40 2] {:result-set-fn first :row-fn :n})
     :rows (jdbc/query db ["select id, name from weft_clj_items order by id"])
     :pids (vec (repeatedly 3 #(jdbc/query db ["select pg_backend_pid() as pid"]
                                           {:result-set-fn first :row-fn :pid})))
     :stats (pool/stats (pool-of ds))}))

(defn- ids [db]
  (jdbc/query db ["select id from weft_clj_tx order by id"] {:row-fn :id}))

(defn transactions
  "jdbc/with-db-transaction over the pool: one that commits, one whose body throws after an
  insert it could see, one that fails in SQL (a duplicate key) after an insert; then the ids that
  stayed, and the pool's statistics."
  [^WeftDataSource ds]
  (let [db {:datasource ds}]
    (jdbc/db-do-commands db ["drop table if exists weft_clj_tx"
                             "create table weft_clj_tx (id int primary key)"])
    (jdbc/with-db-transaction [tx db]
      (jdbc/insert! tx :weft_clj_tx {:id 1}))
    (let [thrown (try
                   (jdbc/with-db-transaction [tx db]
                     (jdbc/insert! tx :weft_clj_tx {:id 2})
                     (throw (ex-info "the body failed" {:seen-inside (ids tx)})))
                   nil
                   (catch clojure.lang.ExceptionInfo e
                     {:message (ex-message e) :seen-inside (:seen-inside (ex-data e))}))
          sql-error (try
                      (jdbc/with-db-transaction [tx db]
                        (jdbc/insert! tx :weft_clj_tx {:id 3})
                        (jdbc/insert! tx :weft_clj_tx {:id 1}))
                      nil
                      (catch SQLException e (.getSQLState e)))]
      {:thrown thrown
       :sql-error sql-error
       :ids (ids db)
       :stats (pool/stats (pool-of ds))})))

(defn- state
  "What a borrower sees on the connection it gets: the JDBC view and the server's."
  [db]
  (jdbc/with-db-connection [c db]
    (let [^Connection conn (jdbc/db-connection c)]
      (merge {:auto-commit (.getAutoCommit conn)
              :read-only (.isReadOnly conn)
              :isolation (.getTransactionIsolation conn)}
             (first (jdbc/query c [(str "select pg_backend_pid() as pid,"
                                        " current_setting('transaction_isolation') as server_isolation,"
                                        " current_setting('transaction_read_only') as server_read_only,"
                                        " (select count(*) from weft_clj_reset) as rows")]))))))

(defn reset-between-borrowers
  "On a pool of ONE connection, so every borrower gets the same backend: the state a fresh borrower
  sees, then after each of these borrowers the state the next one sees:
  :open-transaction  serializable, auto-commit off, an uncommitted insert, returned without commit;
  :read-only         read-only set, auto-commit off, a write refused (the transaction left
                     aborted), returned so;
  :java-jdbc-failed  jdbc/with-db-transaction {:isolation :serializable :read-only? true} whose
                     body throws.
  Each borrower also reports what it saw inside (:inside), proving its change took effect."
  [^WeftDataSource ds]
  (let [db {:datasource ds}]
    (jdbc/db-do-commands db ["drop table if exists weft_clj_reset"
                             "create table weft_clj_reset (id int)"])
    (let [fresh (state db)
          open-tx (jdbc/with-db-connection [c db]
                    (let [^Connection conn (jdbc/db-connection c)]
                      (.setAutoCommit conn false)
                      (.setTransactionIsolation conn Connection/TRANSACTION_SERIALIZABLE)
                      ;; :transaction? false: java.jdbc would otherwise wrap the insert in a transaction of
                      ;; its own and commit it
                      (jdbc/execute! c ["insert into weft_clj_reset values (1)"] {:transaction? false})
                      (first (jdbc/query c ["select current_setting('transaction_isolation') as server_isolation,
                                                    (select count(*) from weft_clj_reset) as rows"]))))
          after-open-tx (state db)
          read-only (jdbc/with-db-connection [c db]
                      (let [^Connection conn (jdbc/db-connection c)]
                        ;; pgjdbc applies read-only to the server in a transaction (BEGIN READ ONLY)
                        (.setReadOnly conn true)
                        (.setAutoCommit conn false)
                        (assoc (first (jdbc/query c ["select current_setting('transaction_read_only') as server_read_only"]))
                               :insert-error (try (jdbc/execute! c ["insert into weft_clj_reset values (2)"] {:transaction? false})
                                                  :no-error
                                                  (catch SQLException e (.getSQLState e))))))
          after-read-only (state db)
          failed (try
                   (jdbc/with-db-transaction [tx db {:isolation :serializable :read-only? true}]
                     (let [seen (first (jdbc/query tx ["select current_setting('transaction_isolation') as server_isolation,
                                                               current_setting('transaction_read_only') as server_read_only"]))]
                       (throw (ex-info "the body failed" seen))))
                   (catch clojure.lang.ExceptionInfo e (ex-data e)))
          after-failed (state db)]
      {:fresh fresh
       :open-transaction {:inside open-tx :next after-open-tx}
       :read-only {:inside read-only :next after-read-only}
       :java-jdbc-failed {:inside failed :next after-failed}
       :stats (pool/stats (pool-of ds))})))

(defn concurrent
  "`n` weft.thread/vfutures at once, each running one query through java.jdbc on `ds`: it doubles its
  own number and, while it holds its connection, asks the server how many backends of `app` are
  open and waits 10 ms in the server. Returns how many answers were wrong, whether each ran on a
  virtual thread, the most backends any query saw, the distinct backends used, and the pool's
  statistics after."
  [^WeftDataSource ds app n]
  (let [db {:datasource ds}
        futures (mapv (fn [i]
                        (weft/vfuture
                          (assoc (first (jdbc/query db [(str "select ?::int * 2 as doubled, pg_backend_pid() as pid,"
                                                             " (select count(*) from pg_stat_activity where application_name = ?) as open"
                                                             " from pg_sleep(0.01)")
                                                        i app]))
                                 :i i
                                 :virtual (weft/virtual-thread?))))
                      (range n))
        results (mapv deref futures)]
    {:results (count results)
     :wrong (count (remove #(= (* 2 (:i %)) (:doubled %)) results))
     :all-virtual (every? :virtual results)
     :max-open (reduce max 0 (map :open results))
     :min-open (reduce min Long/MAX_VALUE (map :open results))
     :distinct-pids (count (distinct (map :pid results)))
     :stats (pool/stats (pool-of ds))}))

(defn close-data-source
  "Closes `ds`'s pool with weft.pool/close! (waiting up to 30 s for borrowed connections), then
  reports: whether every connection came back, whether the data source says it is closed, the
  SQLState a java.jdbc query gets afterwards, and the backends of `app` left on the server (polled
  until none or 10 s: a backend leaves pg_stat_activity a moment after its client closed)."
  [url ^WeftDataSource ds app]
  (let [returned (pool/close! (pool-of ds) 30000)
        after-close (try (jdbc/query {:datasource ds} ["select 1"])
                         :no-error
                         (catch SQLException e (.getSQLState e)))
        deadline (+ (System/nanoTime) (* 10 1000 1000 1000))
        left (loop []
               (let [b (backends url app)]
                 (if (and (pos? b) (< (System/nanoTime) deadline))
                   (do (Thread/sleep 50) (recur))
                   b)))]
    {:all-returned returned
     :closed (.isClosed ds)
     :query-after-close after-close
     :backends-left left}))
