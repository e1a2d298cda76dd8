create table if not exists orders (id bigint auto_increment primary key, customer bigint not null, total bigint not null);
delete from orders;
insert into orders (customer, total) values (7, 30), (7, 12), (8, 5);
