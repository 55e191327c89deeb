import { Migration } from "@mikro-orm/migrations";

/**
 * The audit timeline is read one way only: a transaction's entries, oldest
 * first (annotations_transaction_index). annotations_entity_index (entity
 * type, entity id, time) had no reader, and every annotation paid for it (one
 * of its four index inserts); a sync page writes one annotation per rule
 * change (docs/transaction-changes.md).
 */
export class Migration0012AnnotationIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists annotations_entity_index;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index annotations_entity_index on annotations (entity_type, entity_id, created_at);`);
  }
}
