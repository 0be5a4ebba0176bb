-- Reads a Redlock lock on one node, whoever holds it, for the distributedlocks Actuator endpoint. Changes nothing.
-- KEYS[1]: the lock's hash on this node (see vote.lua)
-- Returns {kind, pttl, owner, token, waited}:
--   kind 0: no key (free here); 1: a lock of this store; 2: a key of another Redis type (blocks every vote here)
--   pttl: the key's remaining TTL in milliseconds (0 without a key, -1 for a key without TTL)
--   owner: the attempt id holding it ('<attempt>~kept' while a minimum hold keeps it), '' if none
--   token: the fencing token recorded for the holder, '' if none yet
--   waited: 1 if a waiting attempt was refused here while it was held (its release publishes), else 0
if redis.call('exists', KEYS[1]) == 0 then
    return { 0, 0, '', '', 0 }
end
local pttl = redis.call('pttl', KEYS[1])
local fields = redis.pcall('hmget', KEYS[1], 'owner', 'token', 'w')
if type(fields) == 'table' and fields.err then
    return { 2, pttl, '', '', 0 }
end
return { 1, pttl, fields[1] or '', fields[2] or '', fields[3] and 1 or 0 }
