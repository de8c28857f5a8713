// Runs a cordis.patch.yml text and MCP tool schemas through DSH's own code (the npm packages pinned in
// package.json), the way DSH does at boot and when its MCP client lists a server's tools.
//
// stdin:  {"patch_yaml": str, "tools": [{"name", "inputSchema", "outputSchema"?}],
//          "values"?: [{"tool": str, "structuredContent": any}]}
// stdout: one JSON report (see the bottom of this file). Exit status 0 whenever a report was printed.
//
// Nothing here re-implements DSH: parsing, patch composition, config validation and schema checks are DSH's
// exported functions.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import * as yaml from 'js-yaml'
import { applyEntryPatches, entryListSchema } from '@deepseek-ai/cordis-plugin-include'
import { composeEntries, loadOptionalPatches } from '@deepseek-ai/dsh-app-boot'
import { Config as McpClientConfig } from '@deepseek-ai/dsh-mcp-client'
import { assertObjectJsonSchema, assertSupportedJsonSchema, validateJsonSchemaValue } from '@deepseek-ai/dsh-tools'

const MCP_CLIENT = '@deepseek-ai/dsh-mcp-client'
const require = createRequire(import.meta.url)

function versions() {
  const names = ['@deepseek-ai/cordis-plugin-include', '@deepseek-ai/dsh-app-boot', MCP_CLIENT,
    '@deepseek-ai/dsh-tools', '@deepseek-ai/cordis', '@deepseek-ai/cordis-plugin-loader', 'js-yaml']
  return Object.fromEntries(names.map((name) => [name, require(`${name}/package.json`).version]))
}

function message(error) {
  return `${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`
}

/** A schema check: the list of violations DSH reports ([] when accepted). */
function violations(assert, schema) {
  try {
    assert(schema)
    return []
  } catch (error) {
    return Array.isArray(error?.violations) ? error.violations : [message(error)]
  }
}

/** What DSH boots with: `loadOptionalPatches` reads the home or profile cordis.patch.yml, `composeEntries`
 * applies every layer over an empty entry list (dsh's `composeProfile`). */
function bootPath(text) {
  const dir = mkdtempSync(join(tmpdir(), 'knit-dsh-check-'))
  const file = join(dir, 'cordis.patch.yml')
  const warnings = []
  try {
    writeFileSync(file, text)
    const patches = loadOptionalPatches('dsh', file) ?? []
    const rows = composeEntries([patches], (line) => warnings.push(line))
    return { ok: true, error: null, patches, rows, warnings }
  } catch (error) {
    return { ok: false, error: message(error), patches: null, rows: null, warnings }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The same text through @deepseek-ai/cordis-plugin-include itself: its YAML dialect (js-yaml's JSON_SCHEMA plus
 * `!!js`) and its `applyEntryPatches`, over an empty entry list. */
function includePath(text) {
  const warnings = []
  try {
    const patches = yaml.load(text, { schema: entryListSchema })
    const rows = applyEntryPatches([], patches, (format, ...args) => {
      let index = 0
      warnings.push(format.replace(/%C/g, () => JSON.stringify(args[index++])))
    })
    return { ok: true, error: null, patches, rows, warnings }
  } catch (error) {
    return { ok: false, error: message(error), patches: null, rows: null, warnings }
  }
}

/** Cordis validates a row's config with the plugin's `Config` schema (standard-schema `validate`, as
 * cordis's `resolveConfig` does) before the plugin's `apply` runs. */
function mcpClientConfig(config) {
  const result = McpClientConfig['~standard'].validate(config)
  if (result.issues) return { ok: false, config: null, error: result.issues.map((i) => i.message).join('; ') }
  return { ok: true, config: result.value, error: null }
}

const request = JSON.parse(readFileSync(0, 'utf8'))
const boot = bootPath(request.patch_yaml ?? '')
const include = includePath(request.patch_yaml ?? '')
const mcpRows = (boot.rows ?? []).filter((row) => row?.name === MCP_CLIENT)
const knitRows = mcpRows.filter((row) => row?.id === 'mcp-knit')
const knit = knitRows.length === 1 ? { ...mcpClientConfig(knitRows[0].config), row: knitRows[0] } : null

const tools = (request.tools ?? []).map((tool) => {
  const output = tool.outputSchema === undefined || tool.outputSchema === null
    ? null : violations(assertSupportedJsonSchema, tool.outputSchema)
  return {
    name: tool.name,
    input_violations: violations(assertObjectJsonSchema, tool.inputSchema),
    // dsh-mcp-client's `supportedOutputSchema` keeps the schema only when assertSupportedJsonSchema accepts it.
    output_violations: output ?? [],
    output_schema_kept: output !== null && output.length === 0,
  }
})

const byName = new Map((request.tools ?? []).map((tool) => [tool.name, tool]))
const values = (request.values ?? []).map(({ tool, structuredContent }) => {
  const schema = byName.get(tool)?.outputSchema
  if (!schema) return { tool, violations: [`no output schema for ${tool}`] }
  return { tool, violations: validateJsonSchemaValue(schema, structuredContent, 'structuredContent') }
})

process.stdout.write(JSON.stringify({
  versions: versions(),
  boot: { ok: boot.ok, error: boot.error, warnings: boot.warnings, rows: boot.rows },
  include: { ok: include.ok, error: include.error, warnings: include.warnings, rows: include.rows },
  same_rows: boot.ok && include.ok && JSON.stringify(boot.rows) === JSON.stringify(include.rows),
  mcp_client_rows: mcpRows.length,
  knit,
  tools,
  values,
}, null, 2) + '\n')
