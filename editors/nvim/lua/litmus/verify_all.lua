-- :LitmusVerifyAll: every `.litmus` file under a directory checked by one `litmus check --json`
-- run, problems in the quickfix list. Adds M.find_files, M.check_json_to_qf, M.verify_all.

local util = require('litmus.util')
local MODELS = util.MODELS
local notify = util.notify
local root_dir = util.root_dir

return function(M)
--- Every `.litmus` file under `dir` (sorted; build and VCS directories skipped).
function M.find_files(dir)
  local files = {}
  for _, f in ipairs(vim.fn.globpath(dir, '**/*.litmus', false, true)) do
    local p = f:gsub('\\', '/')
    if not (p:find('/target/', 1, true) or p:find('/node_modules/', 1, true) or p:find('/%.git/')) then
      table.insert(files, f)
    end
  end
  table.sort(files)
  return files
end

local function num(v, default)
  return type(v) == 'number' and v or default
end

--- The quickfix items of a `litmus check --json` document (JSON v2): one per violation (model,
--- kind, message, the schedule's length), per error diagnostic, and one warning per model whose
--- exploration was incomplete without a violation. Also returns counts for the title.
function M.check_json_to_qf(doc)
  local items = {}
  local counts = { files = 0, failing = 0, errors = 0, incomplete = 0 }
  if type(doc) ~= 'table' or type(doc.files) ~= 'table' then
    return items, counts
  end
  local kinds = {
    assert = 'assertion violation',
    condition = 'condition violation',
    error = 'runtime error',
    deadlock = 'deadlock',
  }
  for _, f in ipairs(doc.files) do
    counts.files = counts.files + 1
    local path = type(f.path) == 'string' and f.path or '?'
    local bad, err = false, false
    for _, d in ipairs(type(f.diagnostics) == 'table' and f.diagnostics or {}) do
      if d.severity == 'error' then
        err = true
        table.insert(items, {
          filename = path,
          lnum = num(d.line, 1),
          col = num(d.col, 1),
          type = 'E',
          text = 'error: ' .. tostring(d.message),
        })
      end
    end
    local results = type(f.results) == 'table' and f.results or {}
    for _, m in ipairs(vim.list_extend(vim.deepcopy(MODELS), util.AXIOMATIC)) do
      local r = results[m]
      -- `SC`; an AArch64 or RISC-V test's model `aarch64.cat`
      local label = util.model_label(m)
      if type(r) == 'table' then
        local violations = type(r.violations) == 'table' and r.violations or {}
        for _, v in ipairs(violations) do
          bad = true
          local steps = type(v.schedule) == 'table' and #v.schedule or 0
          table.insert(items, {
            filename = path,
            lnum = num(v.line, 1),
            col = num(v.col, 1),
            type = 'E',
            text = string.format('%s %s: %s (schedule: %d steps)', label, kinds[v.kind] or tostring(v.kind), tostring(v.message), steps),
          })
        end
        if r.complete == false and #violations == 0 then
          counts.incomplete = counts.incomplete + 1
          local why = {}
          for _, w in ipairs(type(r.warnings) == 'table' and r.warnings or {}) do
            table.insert(why, tostring(w.message))
          end
          table.insert(items, {
            filename = path,
            lnum = 1,
            col = 1,
            type = 'W',
            text = string.format('%s: not verified, exploration incomplete%s', label, #why > 0 and (' (' .. table.concat(why, '; ') .. ')') or ''),
          })
        end
      end
    end
    if bad then
      counts.failing = counts.failing + 1
    end
    if err then
      counts.errors = counts.errors + 1
    end
  end
  return items, counts
end

local function qf_title(counts)
  return string.format(
    'litmus: %d file%s, %d with violations, %d with errors, %d model%s incomplete',
    counts.files,
    counts.files == 1 and '' or 's',
    counts.failing,
    counts.errors,
    counts.incomplete,
    counts.incomplete == 1 and '' or 's'
  )
end

--- Checks every `.litmus` file under `dir` (default: the project root of the current buffer,
--- else the working directory) with one `litmus check --json` run of the configured binary and
--- settings, and puts the problems in the quickfix list (opened when there are any). `on_done`,
--- if given, gets (items, counts) when the run ends. Returns the job id, or nil.
function M.verify_all(dir, on_done)
  if dir == nil or dir == '' then
    local b = vim.api.nvim_get_current_buf()
    dir = vim.api.nvim_buf_get_name(b) ~= '' and root_dir(b) or vim.fn.getcwd()
  end
  dir = vim.fn.fnamemodify(vim.fn.expand(dir), ':p')
  local files = M.find_files(dir)
  if #files == 0 then
    notify('no .litmus files under ' .. dir)
    return nil
  end
  local cmd, err = M.resolve_cmd()
  if not cmd then
    notify(err, vim.log.levels.ERROR)
    return nil
  end
  local s = M.config.settings
  -- the configured operational models, and AArch64's and RISC-V's own (each file is checked
  -- under those of its dialect)
  local models = vim.list_extend(vim.deepcopy(s.models or MODELS), util.AXIOMATIC)
  local args = { cmd[1], 'check', '--json', '--model', table.concat(models, ',') }
  if type(s.loopBound) == 'number' then
    vim.list_extend(args, { '--loop-bound', tostring(s.loopBound) })
  end
  if type(s.timeout) == 'number' and s.timeout > 0 then
    vim.list_extend(args, { '--timeout', tostring(s.timeout) })
  end
  if type(s.engine) == 'string' and s.engine ~= '' then
    vim.list_extend(args, { '--engine', s.engine })
  end
  table.insert(args, '--')
  vim.list_extend(args, files)
  local stdout, stderr = {}, {}
  notify(string.format('verifying %d files under %s', #files, dir))
  local job = vim.fn.jobstart(args, {
    cwd = dir,
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      stdout = data or {}
    end,
    on_stderr = function(_, data)
      stderr = data or {}
    end,
    on_exit = function(_, code)
      vim.schedule(function()
        local ok, doc = pcall(vim.fn.json_decode, table.concat(stdout, '\n'))
        if not ok or type(doc) ~= 'table' then
          notify(string.format('litmus check exited with %d: %s', code, table.concat(stderr, '\n')), vim.log.levels.ERROR)
          if on_done then
            on_done(nil, nil)
          end
          return
        end
        local items, counts = M.check_json_to_qf(doc)
        vim.fn.setqflist({}, ' ', { title = qf_title(counts), items = items })
        if #items > 0 then
          vim.cmd('copen')
        end
        notify(qf_title(counts):gsub('^litmus: ', ''))
        if on_done then
          on_done(items, counts)
        end
      end)
    end,
  })
  if job <= 0 then
    notify('cannot run ' .. cmd[1], vim.log.levels.ERROR)
    return nil
  end
  return job
end

  return {}
end
