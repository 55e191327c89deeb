export default function Page() {
  return <h1>rule-editor-page</h1>;
}
