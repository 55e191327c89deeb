// ESLint (type-aware typescript-eslint) for every TypeScript file; Prettier formats.
// The import-direction rule below is the layout's contract (docs/architecture.md):
//   services → common, gen;  gateways → common, gen;  cli → anything;  nothing → cli.
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

const forbid = (...folders) => ({
  patterns: folders.map((folder) => ({
    group: [`**/${folder}/**`, `**/${folder}`],
    message: `this folder may not import from ${folder}/ (see docs/architecture.md, "Import direction")`,
  })),
});

// Where SQL lives (docs/architecture.md): each table's statements are named functions in
// services/db/tables/<table>.ts, the reads built from a caller's filters in services/db/queries/; domain
// modules call them and reach the database no other way. No exceptions in services/ (migrations are
// in services/db/migrations); bench/ and test/ may run SQL of their own.
const SQL_START = "/^\\s*(select|insert into|update \\w+ set|delete from|with \\w+ as|set (local|transaction))\\b/";
const SQL_ONLY_IN_TABLE_MODULES = [
  {
    selector:
      "ImportDeclaration[source.value=/(^|\\/)db\\/sql\\.js$/] > ImportSpecifier[imported.name=/^(query|table)$/]",
    message: "SQL lives in services/db/tables/<table>.ts: call a named function there (docs/architecture.md)",
  },
  {
    selector: "ImportDeclaration[source.value=/^(pg|knex|@mikro-orm\\/knex)$/]",
    message: "the database is reached through services/db/ only (docs/architecture.md)",
  },
  {
    selector: "CallExpression[callee.property.name=/^(getKnex|getConnection|execute)$/]",
    message: "raw SQL runs through services/db/sql.ts from a table module only (docs/architecture.md)",
  },
];
// SQL text itself, anywhere outside services/db/: a string or template that starts like a statement (Coffer
// writes SQL in lower case).
const NO_SQL_TEXT = {
  selector: `Literal[value=${SQL_START}], TemplateElement[value.raw=${SQL_START}]`,
  message: "SQL text lives in services/db/ (docs/architecture.md)",
};

const restrict = (files, ...folders) => ({
  files,
  rules: { "no-restricted-imports": ["error", forbid(...folders)] },
});

export default tseslint.config(
  { ignores: ["gen/**", "dist/**", "node_modules/**", ".coffer/**", "web/dist/**", "web/src/api/openapi.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      // fastify handlers, Connect handlers and MikroORM migrations are async by contract, awaiting or not.
      "@typescript-eslint/require-await": "off",
    },
  },
  { files: ["**/*.js"], ...tseslint.configs.disableTypeChecked },
  restrict(["services/**"], "gateways", "cli", "fixtures", "test", "bench"),
  {
    files: ["services/**"],
    ignores: ["services/db/**"],
    rules: { "no-restricted-syntax": ["error", ...SQL_ONLY_IN_TABLE_MODULES, NO_SQL_TEXT] },
  },
  // The CLI opens its own `pg` client for the embedded server (statements in services/db/server-admin.ts).
  {
    files: ["cli/**"],
    rules: {
      "no-restricted-syntax": ["error", SQL_ONLY_IN_TABLE_MODULES[0], SQL_ONLY_IN_TABLE_MODULES[2], NO_SQL_TEXT],
    },
  },
  { files: ["gateways/**", "common/**", "fixtures/**"], rules: { "no-restricted-syntax": ["error", NO_SQL_TEXT] } },
  restrict(["gateways/**"], "services", "cli", "fixtures", "test", "bench"),
  restrict(["common/**"], "services", "gateways", "cli", "fixtures", "test", "bench"),
  restrict(["fixtures/**"], "services", "gateways", "cli", "test", "bench"),
  {
    // Tests and benchmarks read untyped JSON answers on purpose; the production code may not.
    files: ["test/**", "bench/**"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  prettier,
  // After eslint-config-prettier, which turns max-len off: Prettier wraps code, not comments or strings.
  { rules: { "max-len": ["error", { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }] } },
  // Shipped migrations are never edited, not even to wrap a line.
  { files: ["services/db/migrations/Migration000[1-4]*.ts"], rules: { "max-len": "off" } },
);
