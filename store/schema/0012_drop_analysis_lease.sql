-- Heap dump analyses run as jobs on the job system, which keeps who runs one
-- and until when: the columns of the leases servers once took are dropped.
ALTER TABLE reports DROP COLUMN owner;
ALTER TABLE reports DROP COLUMN lease_until;
