-- wrk script: requests read from a file (argument 1), one a line: a path, then tab-separated
-- "name: value" headers. Each thread starts at its own random line and cycles through them all,
-- so paths and headers (ids, tokens, cursors) vary as they do for real clients.
local requests = {}
local index = 0

function init(args)
  for line in io.lines(args[1]) do
    if line ~= "" then
      local fields = {}
      for field in string.gmatch(line, "[^\t]+") do
        fields[#fields + 1] = field
      end
      local headers = {}
      for i = 2, #fields do
        local name, value = string.match(fields[i], "^([^:]+):%s*(.*)$")
        headers[name] = value
      end
      requests[#requests + 1] = wrk.format("GET", fields[1], headers)
    end
  end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
  index = math.random(#requests)
end

function request()
  index = index % #requests + 1
  return requests[index]
end
