-- Shared functions of the read/write lock scripts; prepended to each of them when it is loaded.
--
-- A read/write lock is ONE Redis hash (so one Redis Cluster hash slot). Its fields:
--   w        owner id of the write holder: its acquisition attempt, "<client id>:<thread id>/<attempt>"
--   wc       the write holder's hold count
--   wt       the write holder's lease deadline, in Redis TIME milliseconds
--   r:<id>   read hold count of reader <id>
--   t:<id>   lease deadline of reader <id>, in Redis TIME milliseconds: every reader's lease is its own,
--            so a reader that died frees its share when its own lease ends, while others keep renewing
--   ww:<id>  waiting writer <id>'s claim, "<deadline>:<since>" (Redis TIME milliseconds): once it is
--            RW_WRITER_GRACE old, readers that hold nothing wait behind it, so a steady stream of readers
--            cannot starve a writer; before that, readers still enter (the read phase goes on a little)
--   rw:<id>  deadline of waiting reader <id>'s claim
--   ra:<id>  deadline of reader <id>'s admission: the readers waiting when a writer releases are admitted
--            together and enter before the next writer (phase-fair), so a writer that loops cannot keep
--            taking the lock back while they are still being woken; an admission not used expires soon
--   ~f       the last fencing token handed out for the lock (see fence.lua)
--   ~rw      marks the hash as a read/write lock (written with the first holder), so that the reentrant
--            scripts refuse it instead of writing their fields into it
--   ~w       set by an acquire that had to wait: releases publish only then (and clear it; waiters that
--            lose the race set it again), so uncontended locks cost no pub/sub traffic
--   ~n       how many readers the hash holds (fields r:<id>), expired ones included until a full load deletes them
--   ~t       no later than the earliest reader deadline (t:<id>): exact after a full load, and still a lower bound
--            after renewals, which only move deadlines later; ~n and ~t exist only while readers do
-- Many readers (thousands) make a full load (HGETALL) of the hash expensive, so the operations that concern one
-- reader take a fast path of a few O(1) commands while ~t is later than now (then no reader has expired): a
-- renewal, a re-entry, a release that leaves other readers, a new reader when the hash holds nothing but readers,
-- a writer's try that finds only readers. Otherwise, or when the fast path does not decide, a script loads the
-- whole hash (rw_load), deletes what expired and sets ~n and ~t exactly: with renewing readers that happens
-- about once per two thirds of a lease, so the cost per operation does not grow with the number of readers on
-- average; the operation that does the full load pays O(readers) once.
-- A holder released before its minimum hold (holdAtLeast) ended is replaced by a placeholder that nobody owns:
-- writer "~", or reader "~<owner id>", whose deadline is the end of that minimum hold.
-- Holders and claims whose deadline has passed are deleted by the next script that loads the whole lock.
-- The key's TTL is at least the latest deadline in it (exactly that after a full load; a fast path only extends
-- it); the key is deleted when nothing is left.
-- Any other field means the key belongs to a reentrant lock (s.foreign): acquire scripts refuse it (-5) while
-- it has a TTL, and wait for it when it has none (a key no lock of this library wrote; it never expires).

-- How long (milliseconds) readers may still enter after a writer started waiting: a read phase that ends
-- the moment a writer waits lets each looping reader read about once per writer; a few milliseconds more
-- let them read many times, and add only that much to the writer's wait.
local RW_WRITER_GRACE = 5

local function rw_now()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The fast path's summary: the number of readers (~n) and the lower bound of their deadlines (~t) when no reader
-- can have expired (~t later than now), or nil (no readers, or the whole hash must be loaded).
local function rw_summary(key, now)
    local v = redis.call('HMGET', key, '~n', '~t')
    local n, t = tonumber(v[1]), tonumber(v[2])
    if n and t and t > now then
        return n, t
    end
    return nil
end

-- Whether the hash holds nothing but its <n> readers, the summary, the type marker and those of the fields in
-- <optional> that are present (no writer, no claim of anyone else, nothing of another kind); also returns the
-- values of <optional>.
local function rw_only_readers(key, n, optional)
    local values = redis.call('HMGET', key, 'w', '~rw', unpack(optional))
    local present = 2
    for i = 2, #values do
        if values[i] then present = present + 1 end
    end
    return (not values[1]) and redis.call('HLEN', key) == 2 * n + present, { unpack(values, 3) }
end

-- Makes the key live at least until <deadline> (a fast path never shortens its TTL).
local function rw_expire_at_least(key, deadline, now)
    if redis.call('PTTL', key) < deadline - now then
        redis.call('PEXPIRE', key, deadline - now)
    end
end

-- Writes ~n and ~t from a loaded state's readers (deletes them when there is none), where they changed.
local function rw_summarize(key, s)
    local n, earliest = 0, nil
    for _, d in pairs(s.readers) do
        n = n + 1
        if earliest == nil or d < earliest then earliest = d end
    end
    if n == 0 then
        if s.sn then
            redis.call('HDEL', key, '~n', '~t')
        end
    elseif n ~= s.sn or earliest ~= s.st then
        redis.call('HSET', key, '~n', n, '~t', earliest)
    end
    s.sn, s.st = (n > 0) and n or nil, earliest
end

-- Loads the lock's whole state (O(fields)), deleting expired holders and claims, and sets ~n and ~t exactly.
local function rw_load(key, now)
    local s = { writer = false, wt = 0, readers = {}, nreaders = 0, waiting = {}, wsince = {}, rwaiting = {}, admitted = {},
                nadmitted = 0, foreign = false, waited = false }
    local raw = redis.call('HGETALL', key)
    local counts, deadlines = {}, {}
    for i = 1, #raw, 2 do
        local f, v = raw[i], raw[i + 1]
        if f == 'w' then
            s.writer = v
        elseif f == 'wt' then
            s.wt = tonumber(v)
        elseif f == 'wc' then
            -- read where needed
        elseif f == '~w' then
            s.waited = true
        elseif f == '~f' or f == '~rw' then
            -- the last fencing token, the type marker: they live as long as the key
        elseif f == '~n' then
            s.sn = tonumber(v)
        elseif f == '~t' then
            s.st = tonumber(v)
        elseif string.sub(f, 1, 3) == 'rw:' or string.sub(f, 1, 3) == 'ra:' then
            local d = tonumber(v)
            if d <= now then
                redis.call('HDEL', key, f)
            elseif string.sub(f, 1, 3) == 'rw:' then
                s.rwaiting[string.sub(f, 4)] = d
            else
                s.admitted[string.sub(f, 4)] = d
                s.nadmitted = s.nadmitted + 1
            end
        elseif string.sub(f, 1, 2) == 'r:' then
            counts[string.sub(f, 3)] = true
        elseif string.sub(f, 1, 2) == 't:' then
            deadlines[string.sub(f, 3)] = tonumber(v)
        elseif string.sub(f, 1, 3) == 'ww:' then
            local d, since = string.match(v, '^(%d+):(%d+)$')
            d = tonumber(d) or tonumber(v) or 0
            if d <= now then
                redis.call('HDEL', key, f)
            else
                s.waiting[string.sub(f, 4)] = d
                s.wsince[string.sub(f, 4)] = tonumber(since) or 0
            end
        else
            s.foreign = true
        end
    end
    if s.writer and s.wt <= now then
        redis.call('HDEL', key, 'w', 'wc', 'wt')
        s.writer = false
        s.wt = 0
    end
    for id, _ in pairs(counts) do
        local d = deadlines[id] or 0
        if d <= now then
            redis.call('HDEL', key, 'r:' .. id, 't:' .. id)
        else
            s.readers[id] = d
            s.nreaders = s.nreaders + 1
        end
    end
    rw_summarize(key, s)
    return s
end

-- The acquire result for a key of another kind: -6 with the permit count for a semaphore's, -5 while it has a
-- TTL (a reentrant lock holds it: the types must not share a key), -4 when it has none (PTTL's -1 would read
-- as "acquired").
local function rw_foreign_result(key)
    if redis.call('PTTL', key) < 0 then
        return { -4, 0 }
    end
    local permits = redis.call('HGET', key, '~p')
    if permits then
        return { -6, tonumber(permits) }
    end
    return { -5, 0 }
end

-- Marks the lock as waited for, so that the release that lets the waiter in is published.
local function rw_waiting(key, s)
    if not s.waited then
        redis.call('HSET', key, '~w', 1)
        s.waited = true
    end
end

-- Publishes the key if someone waited, and clears the mark.
local function rw_publish(key, s, channel)
    if s.waited then
        redis.call('HDEL', key, '~w')
        s.waited = false
        notify(channel, '', key)
    end
end

-- Moves a holder's deadline (hash field <field>, now <deadline>) to now + lease unless it is later already;
-- returns the deadline: a re-entry or renewal never shortens a lease.
local function rw_extend(key, field, deadline, lease, now)
    if deadline < now + lease then
        redis.call('HSET', key, field, now + lease)
        return now + lease
    end
    return deadline
end

-- Records that reader <owner> waits, for <claim> milliseconds; nothing when claim is 0 (a single try).
local function rw_reader_waits(key, s, owner, claim, now)
    if claim > 0 then
        s.rwaiting[owner] = now + claim
        redis.call('HSET', key, 'rw:' .. owner, now + claim)
    end
end

-- Admits every waiting reader for <admission> milliseconds: they enter before the next writer.
local function rw_admit_readers(key, s, admission, now)
    for id, _ in pairs(s.rwaiting) do
        redis.call('HDEL', key, 'rw:' .. id)
        redis.call('HSET', key, 'ra:' .. id, now + admission)
        if not s.admitted[id] then
            s.nadmitted = s.nadmitted + 1
        end
        s.admitted[id] = now + admission
    end
    s.rwaiting = {}
end

-- The earliest deadline of the waiting writers' claims that readers wait behind (older than the grace), or nil.
local function rw_blocking_claim(s, now)
    local first = nil
    for id, d in pairs(s.waiting) do
        if now - s.wsince[id] >= RW_WRITER_GRACE and (first == nil or d < first) then first = d end
    end
    return first
end

-- The earliest of a table's deadlines, or nil.
local function rw_earliest(deadlines)
    local first = nil
    for _, d in pairs(deadlines) do
        if first == nil or d < first then first = d end
    end
    return first
end

-- Sets the key's TTL to the latest deadline in a loaded state and ~n and ~t to its readers, or deletes the key
-- when none is left.
local function rw_finish(key, s, now)
    local latest = 0
    if s.writer then
        latest = s.wt
    end
    for _, deadlines in ipairs({ s.readers, s.waiting, s.rwaiting, s.admitted }) do
        for _, d in pairs(deadlines) do
            if d > latest then latest = d end
        end
    end
    if latest <= now then
        redis.call('DEL', key)
    else
        rw_summarize(key, s)
        redis.call('PEXPIRE', key, latest - now)
    end
end

