-- Extends the leases of several reentrant locks at once while their owners hold them: the watchdog's batch,
-- one script instead of one per lock (in Redis Cluster, the keys of one call share a slot).
-- KEYS[i]: the hash of lock i; one field per owner id, its value the owner's hold count (and "~w")
-- ARGV[i]: owner id (acquisition attempt) of lock i, "<client id>:<thread id>/<attempt>"
-- ARGV[#KEYS + i]: lease of lock i, in milliseconds
-- Returns an array with, for each lock in KEYS order, 1 when extended (never shortened), 0 when its owner no
-- longer holds it (it was lost), -1 when its key is no hash any more (something else overwrote it, such as a
-- SET: lost too). The same steps as reentrant_renew.lua, for each lock; one overwritten key must not fail the
-- script, and so the renewal of every other lock of the batch.
local n = #KEYS
local renewed = {}
for i = 1, n do
    -- the lease goes to PEXPIRE as the string it is (Redis turns a Lua number into a string on each call)
    local key, owner, lease = KEYS[i], ARGV[i], ARGV[n + i]
    -- pcall: on a key of another type HEXISTS raises WRONGTYPE, which would end the whole script
    local held = redis.pcall('hexists', key, owner)
    if type(held) == 'table' and held.err then
        renewed[i] = -1
    elseif held == 0 then
        renewed[i] = 0
    else
        if redis.call('pttl', key) < tonumber(lease) then
            redis.call('pexpire', key, lease)
        end
        renewed[i] = 1
    end
end
return renewed
