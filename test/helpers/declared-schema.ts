import ts from "typescript";

const schemaFile = new URL("../../src/storage/schema.ts", import.meta.url).pathname;

/** A column, coarsely: the kind of value it holds and whether it may be NULL. */
export interface ColumnShape {
  type: "text" | "integer" | "real" | "blob" | "bool" | "timestamp" | string;
  nullable: boolean;
}

/**
 * The tables and columns src/storage/schema.ts declares (`table.column` → shape), read with the
 * TypeScript compiler: the interfaces vanish at run time, so the type checker resolves each
 * property of `Database`'s tables (aliases, literal unions, kysely's Generated<…>) to a shape.
 */
export function declaredSchema(): Map<string, ColumnShape> {
  declared ??= readDeclaredSchema();
  return declared;
}

// One compile per test file: the type checker takes seconds.
let declared: Map<string, ColumnShape> | undefined;

function readDeclaredSchema(): Map<string, ColumnShape> {
  const program = ts.createProgram([schemaFile], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(schemaFile)!;
  const database = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "Database",
  );
  if (!database) throw new Error("src/storage/schema.ts declares no interface Database");
  const columns = new Map<string, ColumnShape>();
  for (const table of checker.getPropertiesOfType(checker.getTypeAtLocation(database))) {
    const tableType = checker.getTypeOfSymbolAtLocation(table, database);
    for (const column of checker.getPropertiesOfType(tableType)) {
      const shape = shapeOf(checker, selectedType(checker, checker.getTypeOfSymbolAtLocation(column, database)));
      columns.set(`${table.name}.${column.name}`, shape);
    }
  }
  return columns;
}

/** What a SELECT reads: kysely's ColumnType<S, I, U> (and Generated<T>) carries it as `__select__`. */
function selectedType(checker: ts.TypeChecker, type: ts.Type): ts.Type {
  const select = type.getProperty("__select__");
  return select ? checker.getTypeOfSymbol(select) : type;
}

function shapeOf(checker: ts.TypeChecker, type: ts.Type): ColumnShape {
  const members = type.isUnion() ? type.types : [type];
  const nullable = members.some((t) => t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined));
  const kinds = new Set(
    members.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined))).map((t) => kindOf(checker, t)),
  );
  if (kinds.size !== 1) throw new Error(`a column of ${checker.typeToString(type)}: one kind of value expected`);
  return { type: [...kinds][0]!, nullable };
}

function kindOf(checker: ts.TypeChecker, type: ts.Type): string {
  if (type.flags & ts.TypeFlags.StringLike) return "text";
  if (type.flags & (ts.TypeFlags.NumberLike | ts.TypeFlags.BigIntLike)) return "integer";
  if (type.flags & ts.TypeFlags.BooleanLike) return "bool";
  const name = type.getSymbol()?.name;
  if (name === "Date") return "timestamp";
  if (name === "Buffer" || name === "Uint8Array") return "blob";
  return checker.typeToString(type);
}
