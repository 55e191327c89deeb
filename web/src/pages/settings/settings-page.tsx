export default function Page() {
  return <h1>settings-page</h1>;
}
