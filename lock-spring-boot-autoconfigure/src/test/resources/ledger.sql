create table ledger (id int auto_increment primary key, amount int not null);
