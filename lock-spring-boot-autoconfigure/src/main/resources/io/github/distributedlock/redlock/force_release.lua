-- Force-releases a Redlock lock on one node, whoever holds it (the distributedlocks Actuator endpoint, only when
-- distributed-lock.endpoint.force-release-enabled=true), and wakes the clients waiting for it.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- ARGV[1]: the release channel, '<key prefix>__released'
-- Returns 1 when a lock was deleted here; 0 when there was no key; -1 when the key is of another Redis type (not
--         written by this store: it is left untouched). The token counter stays. Repeating it is harmless: the
--         second run finds no key. Its holder learns the loss at its next renewal, which finds the key gone.
if redis.call('exists', KEYS[1]) == 0 then
    return 0
end
local owner = redis.pcall('hget', KEYS[1], 'owner')
if type(owner) == 'table' and owner.err then
    return -1
end
redis.call('del', KEYS[1])
redis.pcall('publish', ARGV[1], KEYS[1])
return 1
