// Lists what each feature module's door (src/modules/*/index.ts) exports and who outside the
// module imports each name (src files; tests listed apart). A name nothing outside imports is a
// door left open for nobody: export only what other modules (or app.ts, cli.ts, main.ts) use.
//   npx tsx scripts/module-doors.ts            (add --all to list the used names too)
//   npx tsx scripts/module-doors.ts --check    (exit 1 if a name is used by no src file: npm run check:deps)
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const checker = program.getTypeChecker();

const modulesDir = path.join(root, 'src', 'modules');
const doors = program
  .getSourceFiles()
  .filter((f) => path.dirname(path.dirname(f.fileName)) === modulesDir && path.basename(f.fileName) === 'index.ts');

/** door file -> exported name -> importing files */
const uses = new Map<string, Map<string, Set<string>>>();
for (const door of doors) {
  const symbol = checker.getSymbolAtLocation(door);
  const names = new Map<string, Set<string>>();
  for (const e of symbol ? checker.getExportsOfModule(symbol) : []) names.set(e.getName(), new Set());
  uses.set(door.fileName, names);
}

for (const file of program.getSourceFiles()) {
  if (file.isDeclarationFile || file.fileName.includes('node_modules')) continue;
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    if (!specifier) continue;
    const target = checker.getSymbolAtLocation(specifier)?.valueDeclaration?.getSourceFile().fileName;
    const names = target && uses.get(target);
    if (!names || path.dirname(file.fileName) === path.dirname(target)) continue;
    const imported: string[] = [];
    if (ts.isImportDeclaration(statement)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings))
        for (const el of bindings.elements) imported.push((el.propertyName ?? el.name).text);
      else if (bindings) imported.push(...names.keys()); // import * as x: counts as all
    } else if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const el of statement.exportClause.elements) imported.push((el.propertyName ?? el.name).text);
    }
    for (const name of imported) names.get(name)?.add(path.relative(root, file.fileName));
  }
}

const all = process.argv.includes('--all');
const check = process.argv.includes('--check');
let total = 0;
let usedInSrc = 0;
let testsOnly = 0;
for (const [door, names] of uses) {
  if (!check) console.log(path.relative(root, door));
  for (const [name, files] of names) {
    total++;
    const src = [...files].filter((f) => f.startsWith('src/'));
    if (src.length) usedInSrc++;
    else if (files.size) testsOnly++;
    if (src.length && !all) continue;
    const where = src.length ? src.join(', ') : files.size ? `tests only: ${[...files].join(', ')}` : 'nobody';
    console.log(
      check ? `${path.relative(root, door)}: ${name} is exported but used by ${where}` : `  ${name}: ${where}`,
    );
  }
}
if (check && usedInSrc < total) process.exitCode = 1;
console.log(
  `${total} names exported; ${usedInSrc} used by src outside their module, ${testsOnly} by tests only, ${total - usedInSrc - testsOnly} by nobody`,
);
