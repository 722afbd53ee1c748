import * as path from 'path';
import * as ts from 'typescript';

/**
 * The public surface of the library as a text report: for each entry point, every name it exports
 * with its kind and its declared shape (signatures, members and their types; no bodies, no doc
 * comments). Checked into the repository (`API.md`) and compared by a test, so that a change to the
 * surface shows in review as a change to the report.
 */

export const ROOT = path.resolve(__dirname, '../..');
export const API_REPORT = path.join(ROOT, 'API.md');
const ENTRY_POINTS: readonly [string, string][] = [
  ['dynamo-constructs', 'src/index.ts'],
  ['dynamo-constructs/cdk8s', 'src/cdk8s/index.ts'],
  ['dynamo-constructs/pulumi', 'src/pulumi/index.ts'],
];

const PRINTER = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** A declaration printed without bodies, initializers, doc comments or private members. */
function shapeOf(node: ts.Declaration, source: ts.SourceFile): string {
  const strip = (context: ts.TransformationContext) => {
    const visit: ts.Visitor = (n) => {
      if (ts.isFunctionDeclaration(n)) return ts.factory.updateFunctionDeclaration(n, n.modifiers, n.asteriskToken, n.name, n.typeParameters, n.parameters, n.type, undefined);
      if (ts.isMethodDeclaration(n)) {
        if (isHidden(n)) return undefined;
        return ts.factory.updateMethodDeclaration(n, n.modifiers, n.asteriskToken, n.name, n.questionToken, n.typeParameters, n.parameters, n.type, undefined);
      }
      if (ts.isConstructorDeclaration(n)) return ts.factory.updateConstructorDeclaration(n, n.modifiers, n.parameters.map((p) => ts.factory.updateParameterDeclaration(p, p.modifiers, p.dotDotDotToken, p.name, p.questionToken, p.type, undefined)), undefined);
      if (ts.isGetAccessorDeclaration(n)) return isHidden(n) ? undefined : ts.factory.updateGetAccessorDeclaration(n, n.modifiers, n.name, n.parameters, n.type, undefined);
      if (ts.isSetAccessorDeclaration(n)) return isHidden(n) ? undefined : ts.factory.updateSetAccessorDeclaration(n, n.modifiers, n.name, n.parameters, undefined);
      if (ts.isPropertyDeclaration(n)) return isHidden(n) ? undefined : ts.factory.updatePropertyDeclaration(n, n.modifiers, n.name, n.questionToken ?? n.exclamationToken, n.type, undefined);
      if ((ts.isPropertySignature(n) || ts.isMethodSignature(n)) && isHidden(n)) return undefined;
      if (ts.isClassStaticBlockDeclaration(n)) return undefined;
      return ts.visitEachChild(n, visit, context);
    };
    return (root: ts.Node) => ts.visitNode(root, visit) as ts.Node;
  };
  const result = ts.transform(node as ts.Node, [strip]);
  const printed = PRINTER.printNode(ts.EmitHint.Unspecified, result.transformed[0], source);
  result.dispose();
  return printed;
}

/** Private, protected and `@internal` members are not part of the surface. */
function isHidden(n: ts.Node): boolean {
  const flags = ts.getCombinedModifierFlags(n as ts.Declaration);
  if (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return true;
  const name = (n as { name?: ts.Node }).name;
  if (name && ts.isPrivateIdentifier(name)) return true;
  return ts.getJSDocTags(n).some((t) => t.tagName.text === 'internal') || /@internal\b/.test(ts.getJSDocCommentsAndTags(n).map((d) => d.getText()).join(' '));
}

/** A variable's declared type, or the checker's when it has none written. */
function variableShape(decl: ts.VariableDeclaration, checker: ts.TypeChecker): string {
  const kind = (decl.parent.flags & ts.NodeFlags.Const) !== 0 ? 'const' : 'let';
  const type = decl.type ? decl.type.getText() : checker.typeToString(checker.getTypeAtLocation(decl), decl, ts.TypeFormatFlags.NoTruncation);
  return `declare ${kind} ${decl.name.getText()}: ${type};`;
}

function entryProgram(): ts.Program {
  return ts.createProgram(
    ENTRY_POINTS.map(([, file]) => path.join(ROOT, file)),
    { strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10, skipLibCheck: true, noEmit: true, types: [] },
  );
}

/** The names an entry point exports, sorted, each with the symbol it stands for. */
function exportsOf(program: ts.Program, file: string): { exported: ts.Symbol; symbol: ts.Symbol }[] {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path.join(ROOT, file))!;
  return checker
    .getExportsOfModule(checker.getSymbolAtLocation(source)!)
    .slice()
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((exported) => ({ exported, symbol: exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported }));
}

/**
 * Types the public declarations of each entry point mention (in signatures, members, heritage) that the
 * entry point does not export: a user could receive such a value but not name its type. Private and
 * `@internal` members do not count. Each as `entry: Name (mentioned by Exported)`; and names exported
 * although their declaration is `@internal` (the published declarations leave those out).
 */
export function unexportedTypes(): string[] {
  const program = entryProgram();
  const checker = program.getTypeChecker();
  const src = path.join(ROOT, 'src') + path.sep;
  const missing = new Set<string>();
  for (const [entry, file] of ENTRY_POINTS) {
    const exports = exportsOf(program, file);
    const exported = new Set(exports.map((e) => e.symbol));
    // a class the entry exports under its parent's name (the Pulumi secrets extend the core's) hides its parent
    const names = new Set(exports.map((e) => e.exported.name));
    for (const { exported: name, symbol } of exports) {
      // an @internal declaration is stripped from the published declarations: exporting it breaks them
      if ((symbol.getDeclarations() ?? []).some((d) => isHidden(ts.isVariableDeclaration(d) ? d.parent.parent : d))) missing.add(`${entry}: ${name.name} is exported but @internal`);
      const visit = (n: ts.Node): void => {
        if (n !== undefined && (ts.isPropertyDeclaration(n) || ts.isMethodDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n) || ts.isPropertySignature(n) || ts.isMethodSignature(n) || ts.isConstructorDeclaration(n)) && isHidden(n)) return;
        // a function's body and a variable's initializer are not its declaration
        if (ts.isBlock(n)) return;
        if (ts.isVariableDeclaration(n)) {
          if (n.type) visit(n.type);
          return;
        }
        if (ts.isPropertyDeclaration(n) && n.initializer) {
          if (n.type) visit(n.type);
          return;
        }
        if (ts.isTypeReferenceNode(n) || ts.isExpressionWithTypeArguments(n) || ts.isTypeQueryNode(n)) {
          const target = ts.isTypeReferenceNode(n) ? n.typeName : ts.isTypeQueryNode(n) ? n.exprName : n.expression;
          let referenced = checker.getSymbolAtLocation(target);
          if (referenced && referenced.flags & ts.SymbolFlags.Alias) referenced = checker.getAliasedSymbol(referenced);
          const declaration = referenced?.getDeclarations()?.[0];
          if (referenced && declaration && !(referenced.flags & ts.SymbolFlags.TypeParameter) && declaration.getSourceFile().fileName.startsWith(src) && !exported.has(referenced) && !names.has(referenced.name)) {
            missing.add(`${entry}: ${referenced.name} (mentioned by ${name.name})`);
          }
        }
        ts.forEachChild(n, visit);
      };
      for (const declaration of symbol.getDeclarations() ?? []) visit(declaration);
    }
  }
  return [...missing].sort();
}

/** The report, deterministic for the same sources. */
export function apiReport(): string {
  const program = entryProgram();
  const checker = program.getTypeChecker();
  const out: string[] = [
    '# API report',
    '',
    'The public surface of each entry point: every exported name with its declared shape (no bodies, no doc comments, no private or `@internal` members).',
    'Generated by `npm run api` (`test/support/api-report.ts`); `test/api-report.test.ts` fails when the sources and this file differ, so a change to the surface shows here in review.',
    '',
  ];
  for (const [entry, file] of ENTRY_POINTS) {
    const names = exportsOf(program, file);
    out.push(`## \`${entry}\` (${names.length} names)`, '', '```ts');
    for (const { exported, symbol } of names) {
      const declarations = symbol.getDeclarations() ?? [];
      const shapes = declarations.map((decl) => {
        const shape = ts.isVariableDeclaration(decl) ? variableShape(decl, checker) : shapeOf(decl, decl.getSourceFile());
        // where a name is declared is not part of the surface; its name, when re-exported as another, is
        return `${exported.name !== symbol.name ? `// exported as ${exported.name}\n` : ''}${shape.trim()}`;
      });
      out.push(...shapes, '');
    }
    out.push('```', '');
  }
  return out.join('\n');
}
