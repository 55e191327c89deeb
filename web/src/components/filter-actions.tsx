/** The buttons under a filter form: apply (the form's submit) and clear (empty the form and apply that). */
export function FilterActions({ onClear }: { onClear: () => void }) {
  return (
    <div className="row form-actions">
      <button type="submit" className="primary">
        Apply filters
      </button>
      <button type="button" onClick={onClear}>
        Clear
      </button>
    </div>
  );
}
